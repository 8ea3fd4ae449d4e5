"""Widgets of the main window; none of them starts threads or opens an Engine of its own."""
