"""lostcities.server: the online room of rule text 002 (``lc serve``, docs/server.md).

- :mod:`.store`: the one interface rooms, seats, chat lines and turns are kept behind,
  and its embedded SQLite implementation;
- :mod:`.store_pg`: the same interface on a PostgreSQL server (``lc serve --store``; the
  ``postgresql`` extra, imported only when such a store is opened);
- :mod:`.room`: the authoritative room (commands, moves, what each seat may see) over the
  public API of :mod:`lostcities.engine`;
- :mod:`.protocol`: the JSON schema of every message both ways, the limits, the server's
  message catalogue (English, French);
- :mod:`.app`: the Starlette application (HTTP and WebSocket).

Only :mod:`.app` needs the ``serve`` extra (``pip install 'lostcities[serve]'``).
"""
