-- The notes of the notes app TestNotesEveryLanguage builds in every
-- language: the same table for Go, C, AssemblyScript and Rust.
CREATE TABLE notes (
  id INTEGER PRIMARY KEY,
  text TEXT NOT NULL
);
