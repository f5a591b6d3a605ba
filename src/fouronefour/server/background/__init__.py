"""Work off the event loop: round analysis and bot decisions in worker processes."""
