"""Play the expert in a browser: a local web app on the project's own UCI engine (docs/web.md)."""
