"""The game's setup in the page: from an empty folder to the first analysed state.

`campo serve` without `--table` and `--roster` opens it (and a live game reaches it at
`/setup`): the rulebook, the table and its anchors, the roster, the markers to print, the
camera calibrated live, the table check, then play. The files on disk (`table.toml`,
`roster.toml`, `camera.json`, `terrain.json`) stay the truth; the page only writes them, whole
and atomically. `host.CampoHost` is the ASGI app that serves the setup and, once the files make a
game, the live overlay (`server.app.create_app`) fed by the same camera.
"""
