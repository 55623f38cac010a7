#!/usr/bin/env python3
"""Takes a screenshot of the X display in DISPLAY, as a person would see it.

Usage: screenshot.py PNG RAW
Saves the whole screen as PNG (for a person to look at) and its pixels, row by row, to RAW; prints
"WIDTH HEIGHT ROWSTRIDE CHANNELS" of RAW. Reads the root window through GDK 3 (python3-gi,
gir1.2-gtk-3.0).
"""
import sys

import gi

gi.require_version("Gdk", "3.0")
from gi.repository import Gdk

root = Gdk.get_default_root_window()
pixbuf = Gdk.pixbuf_get_from_window(root, 0, 0, root.get_width(), root.get_height())
pixbuf.savev(sys.argv[1], "png", [], [])
with open(sys.argv[2], "wb") as raw:
    raw.write(pixbuf.get_pixels())
print(pixbuf.get_width(), pixbuf.get_height(), pixbuf.get_rowstride(), pixbuf.get_n_channels())
