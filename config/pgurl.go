package config

import (
	"strconv"
	"strings"
)

// postgresURL reads a postgres:// or postgresql:// url as libpq does, and
// pgx, which parses one as libpq does: the user and password end at the
// first "@" before any "/" (so they may hold # ? [ ] ^ { } unencoded), then
// comma-separated hosts, each with its port (an IPv6 address in brackets),
// the database up to "?", and the query's pairs, the last of a key
// counting (ssl=true, after the last sslmode, is sslmode=require). It
// returns the sslmode asked for ("" when none), and valid false for what
// the driver would refuse to parse: a "%" not followed by two hex digits
// (or %00), a port that is not a number from 1 to 65535, an IPv6 address
// without its "]". url.Parse is stricter: it refuses urls the driver
// connects with.
func postgresURL(s string) (sslmode string, valid bool) {
	p, ok := strings.CutPrefix(s, "postgresql://")
	if !ok {
		if p, ok = strings.CutPrefix(s, "postgres://"); !ok {
			return "", false
		}
	}
	if i := strings.IndexAny(p, "@/"); i >= 0 && p[i] == '@' {
		if !percentEncoded(p[:i]) {
			return "", false
		}
		p = p[i+1:]
	}
	for {
		if strings.HasPrefix(p, "[") {
			end := strings.IndexByte(p, ']')
			if end <= 1 {
				return "", false
			}
			p = p[end+1:]
			if p != "" && !strings.ContainsRune(":/?,", rune(p[0])) {
				return "", false
			}
		} else {
			end := strings.IndexAny(p, ":/?,")
			if end < 0 {
				end = len(p)
			}
			if !percentEncoded(p[:end]) {
				return "", false
			}
			p = p[end:]
		}
		if port, ok := strings.CutPrefix(p, ":"); ok {
			end := strings.IndexAny(port, "/?,")
			if end < 0 {
				end = len(port)
			}
			if !validPort(port[:end]) {
				return "", false
			}
			p = port[end:]
		}
		rest, ok := strings.CutPrefix(p, ",")
		if !ok {
			break
		}
		p = rest
	}
	if path, ok := strings.CutPrefix(p, "/"); ok {
		db, query, hasQuery := strings.Cut(path, "?")
		if !percentEncoded(db) {
			return "", false
		}
		p = ""
		if hasQuery {
			p = "?" + query
		}
	}
	query, _ := strings.CutPrefix(p, "?")
	ssl, sslLast := "", false
	for pair := range strings.SplitSeq(query, "&") {
		key, value, ok := strings.Cut(pair, "=")
		if !ok {
			continue
		}
		switch key {
		case "sslmode":
			sslmode, sslLast = value, false
		case "ssl":
			ssl, sslLast = value, true
		}
	}
	if ssl == "true" && sslLast {
		sslmode = "require"
	}
	return sslmode, true
}

// percentEncoded reports whether every "%" of s is followed by two hex
// digits, and none encodes the byte 0, as libpq requires of each part of
// a url.
func percentEncoded(s string) bool {
	_, ok := percentDecode(s)
	return ok
}

// percentDecode is s with its "%XX" decoded; ok is false when a "%" is not
// followed by two hex digits or encodes the byte 0.
func percentDecode(s string) (_ string, ok bool) {
	if !strings.Contains(s, "%") {
		return s, true
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		if i+2 >= len(s) {
			return "", false
		}
		c, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
		if err != nil || c == 0 {
			return "", false
		}
		b.WriteByte(byte(c))
		i += 2
	}
	return b.String(), true
}

// validPort reports whether port, as a url spells it, is empty (the
// default port) or a number from 1 to 65535, spaces around it allowed.
func validPort(port string) bool {
	port, ok := percentDecode(port)
	if !ok {
		return false
	}
	if port = strings.Trim(port, " "); port == "" {
		return true
	}
	n, err := strconv.ParseUint(port, 10, 16)
	return err == nil && n >= 1
}

// isURL reports whether s reads as a url, a scheme before "://" ("jdbc:
// postgresql" too, to be named as the wrong one), rather than key=value
// settings one of whose values (a password) holds "://": those have an
// "=" before it.
func isURL(s string) bool {
	scheme, _, ok := strings.Cut(s, "://")
	return ok && scheme != "" && !strings.ContainsAny(scheme, "= \t\n\r\f\v")
}
