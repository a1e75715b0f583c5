# Widths of the small zoo, imported under another name beside the large
# zoo's (uses_widths.py).
WIDTHS = [8, 16, 32]
