"""The top layer: the `campo` command line, the live server and its web overlay."""
