package postgres

import (
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/wasmendpoints/endpoints/database"
)

// checkExecMode keeps the url's default_query_exec_mode, pgx's way of
// running a statement, and refuses the one that breaks a guest's rules:
//   - cache_statement (pgx's default, and so the default here) prepares
//     each statement once per connection, under a name: the fastest, but
//     a pooler in transaction mode (PgBouncer before 1.21, or without
//     max_prepared_statements) hands the next statement of a connection to
//     another server connection, which does not know the name;
//   - exec and describe_exec use the unnamed statement, and
//     cache_describe too after the first run: they work behind such a
//     pooler (exec in one round trip, parameters and results in text);
//   - simple_protocol interpolates the parameters into the SQL text in
//     the client and sends it with the simple protocol, which runs
//     several statements in one: a guest's SQL would no longer be one
//     statement, so it is refused.
func checkExecMode(c *pgx.ConnConfig) error {
	if c.DefaultQueryExecMode == pgx.QueryExecModeSimpleProtocol {
		return fmt.Errorf("url: default_query_exec_mode=simple_protocol runs several statements in one and puts the parameters into the SQL text, which a guest's statement may not do; behind a pooler in transaction mode (PgBouncer), use default_query_exec_mode=exec instead")
	}
	return nil
}

// pooledStatement reports whether pe is the server refusing one of pgx's
// named prepared statements (stmtcache_...) as already there (42P05) or
// not there (26000): a pooler in transaction mode ran the connection's
// statements on several server connections (checkExecMode).
func pooledStatement(pe *pgconn.PgError) bool {
	return (pe.Code == "42P05" || pe.Code == "26000") && strings.Contains(pe.Message, `prepared statement "stmtcache_`)
}

// pooledStatementAdvice ends the message of a pooledStatement error.
const pooledStatementAdvice = ": a connection pooler in transaction mode (PgBouncer) sits between the host and PostgreSQL, and it does not keep the prepared statements the host makes on a connection; add default_query_exec_mode=exec to the database's url, or set the pooler's max_prepared_statements (PgBouncer 1.21 or later), or use its session mode"

// startupParameterAdvice is what to do about a connection to database
// db (database.Options.Name) refused for message, "unsupported startup
// parameter: NAME": a pooler's refusal (PgBouncer's), which knows only a
// few parameters.
func startupParameterAdvice(db, message string) string {
	name := strings.TrimSpace(strings.TrimPrefix(message, "unsupported startup parameter:"))
	if name == "statement_timeout" {
		return ": a connection pooler (PgBouncer) refuses the parameters it does not know, and the host sends statement_timeout (" + database.Setting(db, "statementTimeout") + ") with each connection; add statement_timeout to the pooler's ignore_startup_parameters, and set the timeout on the server instead (ALTER ROLE ... SET statement_timeout = '30s')"
	}
	return fmt.Sprintf(": a connection pooler (PgBouncer) refuses the parameters it does not know; remove %s from the database's url, or add it to the pooler's ignore_startup_parameters", name)
}
