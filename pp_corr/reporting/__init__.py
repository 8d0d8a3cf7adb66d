"""What a comparison writes: the report (:mod:`.report`; its document and the Markdown, HTML and LaTeX renderings
in :mod:`.document`), result files other tools read (:mod:`.output`) and figure files (:mod:`.figure_files`)."""
