"""Watching and playing games: the replay viewer (``hunger-rl view``), the play server
(``hunger-rl play``) and its terminal mode. The browser pages draw the same JSON snapshots of a
game (each game's ``UI_GAMES`` entry, ``games``) with the same script (``render.js``)."""
