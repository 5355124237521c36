"""From detected markers to the table: camera intrinsics (camera.json), the table's pose in each
frame from its anchors, and base poses in table millimetres. Imports `vision` only."""
