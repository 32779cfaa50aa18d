package postgres

import (
	"errors"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/wasmendpoints/endpoints/database"
	"github.com/wasmendpoints/endpoints/internal/sqlredact"
)

// nameClasses are the SQLSTATE classes of keptClasses whose messages
// quote a name PostgreSQL looked up and did not find, as it was given:
// the statement's own ("relation \"userz\" does not exist"), or a value
// it was given as a name, which holds whatever the value held: a
// parameter or literal cast to regclass, regrole, regproc, regtype,
// regnamespace... ($1::regclass), or passed to a function that takes a
// name as text (nextval($1), has_table_privilege($1, 'select'),
// current_setting($1)), gives "relation \"ada@example\" does not exist",
// "schema ...", "role ...", "database ..." or, for a name of three parts,
// "cross-database references are not implemented: \"a.b.c\"" (0A000).
var nameClasses = map[string]bool{
	"0A": true, // feature not supported
	"3D": true, // invalid catalog name
	"3F": true, // invalid schema name
	"42": true, // syntax error or access rule violation
}

// withStatement is err, the mapped error of sql, a guest's statement or
// a migration's script, with its redacted message (database.Error.Redacted)
// keeping only the names sql holds: a message of nameClasses has each
// name it quotes that is not a word of sql outside its literals and
// comments (sqlredact.Statement, as a span shows it) replaced by "?",
// so that what leaves the call says no more than its statement does.
// "relation \"userz\" does not exist" stays for SELECT * FROM userz, and
// is "relation ? does not exist" for SELECT $1::regclass. A name found
// by a function, view or trigger the statement ran is not in it, and is
// left out too: it may have been made from a value (EXECUTE format('...
// %I', $1)). The guest's own message is unchanged, as is an error of a
// connection attempt, whose names are the url's.
func withStatement(err error, sql string) error {
	var e *database.Error
	var pe *pgconn.PgError
	if err == nil || !errors.As(err, &e) || !errors.As(e.Err, &pe) || atConnect(e.Err) ||
		!nameClasses[pe.Code[:min(2, len(pe.Code))]] {
		return err
	}
	if rest, ok := strings.CutPrefix(e.Redacted, pe.Message); ok {
		e.Redacted = statementNames(pe.Message, sql) + rest
	}
	return err
}

// statementNames is msg with the names it quotes ("users",
// "public.users") as far as sql holds them outside its literals and
// comments: from the first that it does not hold to the last quote of
// msg is "?", as sqlredact.Message replaces quoted text (PostgreSQL does
// not escape a quote inside a name it quotes, so a value holding quotes,
// `x" of relation "users`, could otherwise pass its middle off as text
// between two names). A name of several parts is held when it is whole a
// name of sql ("My.Table"), or when each of its parts is
// ("public"."users", public.users, Public.Users, which PostgreSQL folds
// to lower case).
func statementNames(msg, sql string) string {
	if !strings.Contains(msg, `"`) {
		return msg
	}
	names := namesOf(sqlredact.Statement(sqlredact.PostgreSQL, sql))
	held := func(name string) bool {
		if names[name] {
			return true
		}
		for part := range strings.SplitSeq(name, ".") {
			if !names[part] {
				return false
			}
		}
		return true
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(msg, '"')
		if i < 0 {
			b.WriteString(msg)
			return b.String()
		}
		b.WriteString(msg[:i])
		j := strings.IndexByte(msg[i+1:], '"')
		if name := msg[i+1 : i+1+max(j, 0)]; j < 0 || name == "" || !held(name) {
			b.WriteByte('?')
			if last := strings.LastIndexByte(msg, '"'); last > i {
				b.WriteString(msg[last+1:])
			}
			return b.String()
		}
		b.WriteString(msg[i : i+2+j])
		msg = msg[i+2+j:]
	}
}

// namesOf are the names of sql, a statement without literals or comments
// (sqlredact.Statement): its words as written and with their ASCII
// letters in lower case, as PostgreSQL folds an unquoted name, and its
// quoted names as they are (a doubled quote in one read as one).
func namesOf(sql string) map[string]bool {
	names := make(map[string]bool)
	for i := 0; i < len(sql); {
		switch c := sql[i]; {
		case c == '"':
			end := i + quotedEnd(sql[i:], false)
			name := sql[i+1 : max(i+1, end-1)]
			names[strings.ReplaceAll(name, `""`, `"`)] = true
			i = end
		case isWordByte(c):
			end := i + 1
			for end < len(sql) && isWordByte(sql[end]) {
				end++
			}
			word := sql[i:end]
			names[word] = true
			names[asciiLower(word)] = true
			i = end
		default:
			i++
		}
	}
	return names
}

// asciiLower is s with its ASCII letters in lower case, as PostgreSQL
// folds an unquoted name in a multibyte encoding (UTF8): other letters
// stay as they are.
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if 'A' <= b[j] && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}
