"""Campo: a camera-assisted tracker and rules engine for historical miniatures wargames.

The installed distribution has this one top-level name. Its layers are the repository's
top-level folders, mapped by ``package-dir`` in pyproject.toml, data flowing one way:

- `campo.vision` (vision/): markers, detection on pixels, the synthetic camera, table files;
- `campo.calibration` (calibration/): camera intrinsics, table registration, poses, tracking;
- `campo.engine` (engine/): the rules;
- `campo.server` (server/): the command line, the live server, recordings.

`campo.errors` holds the user-facing errors every layer raises.
"""
