"""Campo's lowest layer: fiducial markers, detection on pixels, the synthetic camera and the
description of the physical table (table.toml, roster.toml). Imports nothing else of Campo's."""
