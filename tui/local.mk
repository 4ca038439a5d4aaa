noinst_LIBRARIES += libtandem_tui.a
libtandem_tui_a_SOURCES =
