"""The chooser (issue #40): its training records, its fit on master games and its measure on the experts' positions."""
