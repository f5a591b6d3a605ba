"""The HTTP and WebSocket routes, one router per concern (app.py assembles them around one
ServerState, state.py): tables, operations, replays, analysis (who sees what:
analysisview), config, static (the web client), sockets, lessons; answers, limits and
request bodies shared by them."""
