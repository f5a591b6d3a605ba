"""Friends, blocks, presence and table invites between profiles (docs/friends.md)."""
