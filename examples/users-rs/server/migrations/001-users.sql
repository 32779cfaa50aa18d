-- The users of the example, with the seed users 1, 2 and 3: the same
-- table, counter and seed as examples/users (its 001-users.sql). Portable
-- SQL: the same file migrates SQLite and PostgreSQL.
CREATE TABLE users (
  id BIGINT PRIMARY KEY,
  name TEXT NOT NULL,
  email TEXT NOT NULL
);

-- The id counters: UPDATE ... RETURNING takes the next id atomically on
-- both databases, and an id is never given out twice, even after a
-- failed insert.
CREATE TABLE counters (
  name TEXT PRIMARY KEY,
  value BIGINT NOT NULL
);

INSERT INTO users (id, name, email) VALUES
  (1, 'Ada Lovelace', 'ada@example.com'),
  (2, 'Grace Hopper', 'grace@example.com'),
  (3, 'Alan Turing', 'alan@example.com');

INSERT INTO counters (name, value) VALUES ('users', 3);
