"""Sequential comparison: decide with fewer runs or data sets, and the error rates of stopping early."""
