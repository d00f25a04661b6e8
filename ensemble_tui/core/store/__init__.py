"""What is kept on disk: the home folder, the SQLite archive, sessions, uploads and drafts, all
written atomically."""
