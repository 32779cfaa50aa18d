CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, score REAL, avatar BLOB);
INSERT INTO users (name, score, avatar) VALUES ('Ada', 1.5, X'0001FF');
INSERT INTO users (name) VALUES ('Grace');
CREATE TABLE tags (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users (id));
