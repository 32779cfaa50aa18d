package postgres

import "testing"

func TestStatementNames(t *testing.T) {
	for _, tt := range []struct{ name, msg, sql, want string }{
		{"the statement's table", `relation "users" does not exist`, "SELECT * FROM users", `relation "users" does not exist`},
		{"a table in upper case, folded", `relation "users" does not exist`, "SELECT * FROM USERS", `relation "users" does not exist`},
		{"a quoted name as it is", `relation "My Users" does not exist`, `SELECT * FROM "My Users"`, `relation "My Users" does not exist`},
		{"a quoted name with a quote, not told from two", `relation "a"b" does not exist`, `SELECT * FROM "a""b"`, `relation ? does not exist`},
		{"a value holding quotes", `relation "x" of relation "users" does not exist`, `SELECT $1::regclass FROM users`, `relation ? does not exist`},
		{"a quoted name of another case", `relation "Users" does not exist`, "SELECT * FROM users", `relation ? does not exist`},
		{"a qualified name", `relation "public.users" does not exist`, "SELECT * FROM public.users", `relation "public.users" does not exist`},
		{"a qualified name, one part quoted", `relation "My S.users" does not exist`, `SELECT * FROM "My S".users`, `relation "My S.users" does not exist`},
		{"a column and its table", `column "nme" of relation "users" does not exist`, "INSERT INTO users (nme) VALUES ($1)", `column "nme" of relation "users" does not exist`},
		{"a value of a parameter", `relation "s3cret" does not exist`, "SELECT $1::regclass", `relation ? does not exist`},
		{"a value of a literal", `relation "s3cret" does not exist`, "SELECT 's3cret'::regclass", `relation ? does not exist`},
		{"a value of a dollar-quoted literal", `relation "s3cret" does not exist`, "SELECT $q$s3cret$q$::regclass", `relation ? does not exist`},
		{"a value of an escape string", `relation "s3cret" does not exist`, `SELECT E's3cret'::regclass`, `relation ? does not exist`},
		{"a name only in a comment", `relation "s3cret" does not exist`, "SELECT $1::regclass /* s3cret */", `relation ? does not exist`},
		{"a name within a word", `relation "cret" does not exist`, "SELECT s3cret FROM t WHERE $1::regclass IS NULL", `relation ? does not exist`},
		{"one part of two not held", `relation "public.s3cret" does not exist`, "SELECT * FROM public.t WHERE $1::regclass IS NULL", `relation ? does not exist`},
		{"one name of two not held", `column "s3cret" of relation "users" does not exist`, "SELECT has_column_privilege('users', $1, 'select') FROM users", `column ? does not exist`},
		{"the second of two names not held", `column "nme" of relation "s3cret" does not exist`, "SELECT nme FROM t", `column "nme" of relation ? does not exist`},
		{"a quote that does not close", `relation "s3cret does not exist`, "SELECT 1", `relation ?`},
		{"a quote that does not close after a name held", `column "t" of relation "s3cret does not exist`, "SELECT * FROM t", `column "t" of relation ?`},
		{"no quotes", `function lower(integer) does not exist`, "SELECT lower(1)", `function lower(integer) does not exist`},
		{"an empty name", `zero-length delimited identifier at or near """"`, `SELECT ""`, `zero-length delimited identifier at or near ?`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := statementNames(tt.msg, tt.sql); got != tt.want {
				t.Errorf("statementNames(%q, %q)\n got %q\nwant %q", tt.msg, tt.sql, got, tt.want)
			}
		})
	}
}
