# Widths of the large zoo (uses_widths.py).
WIDTHS = [64, 128]
