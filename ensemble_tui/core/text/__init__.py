"""Small, pure text helpers: control characters stripped, Markdown blocks and code blocks."""
