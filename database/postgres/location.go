package postgres

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/wasmendpoints/endpoints/database"
)

// location is where cfg connects, as the url and libpq's environment
// gave it (db.Location): each host and port (the first, then the
// fallbacks of a list of hosts, each once), the database (the user's name
// when none is given, as the server takes it) and the user, as libpq's
// key=value settings spell them. Never the password.
func location(cfg *pgconn.Config) string {
	type addr struct {
		host string
		port uint16
	}
	addrs := []addr{{cfg.Host, cfg.Port}}
	for _, f := range cfg.Fallbacks {
		if a := (addr{f.Host, f.Port}); !slices.Contains(addrs, a) {
			addrs = append(addrs, a) // sslmode=prefer tries each host twice
		}
	}
	hosts, ports := make([]string, len(addrs)), make([]string, len(addrs))
	for i, a := range addrs {
		hosts[i], ports[i] = a.host, strconv.Itoa(int(a.port))
	}
	db := cfg.Database
	if db == "" {
		db = cfg.User
	}
	return fmt.Sprintf("postgres host=%s port=%s dbname=%s user=%s", strings.Join(hosts, ","), strings.Join(ports, ","), db, cfg.User)
}

// checkEnvironment checks the settings of a database without a url,
// which libpq's environment alone gives (PGHOST, PGPORT, PGDATABASE,
// PGUSER, PGPASSWORD, PGSSLMODE, PGPASSFILE, or PGSERVICE naming an entry
// of pg_service.conf): it must name the server and the database, which
// libpq would otherwise take to be a local socket and the user's name.
// A deployment that lost its variables must fail saying what to set, not
// reach another server. cfg is what pgx made of the environment; the
// error names what is missing and database name's url setting.
func checkEnvironment(cfg *pgconn.Config, name string) error {
	var missing, set []string
	if os.Getenv("PGHOST") == "" && os.Getenv("PGSERVICE") == "" {
		missing, set = append(missing, "server"), append(set, "PGHOST (and PGPORT unless 5432)")
	}
	if cfg.Database == "" {
		missing, set = append(missing, "database"), append(set, "PGDATABASE")
	}
	if len(missing) == 0 {
		return nil
	}
	url := database.Setting(name, "url")
	return fmt.Errorf("%s is empty, so libpq's environment gives the connection settings, and it names no %s: set %s, with PGUSER, PGPASSWORD (or PGPASSFILE) and PGSSLMODE as the server needs; or PGSERVICE, an entry of pg_service.conf; or %s, such as postgres://app@db:5432/app",
		url, strings.Join(missing, " nor "), strings.Join(set, " and "), url)
}
