"""What a comparison writes: the report (:mod:`.report`, rendered by :mod:`.formats`), result files other tools
read (:mod:`.output`) and figure files (:mod:`.figure_files`)."""
