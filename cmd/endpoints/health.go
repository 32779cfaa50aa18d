package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"
)

// cmdHealth implements `endpoints health URL`: one GET, exit 0 when it
// answers 2xx, 1 otherwise. It is the probe of images without a shell or
// curl (deploy/Dockerfile's HEALTHCHECK runs it against the admin
// listener's /readyz).
func cmdHealth(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("health", flag.ContinueOnError)
	timeout := fs.Duration("timeout", 5*time.Second, "how long the request may take")
	target, ok := parse(fs, "URL", "URL such as http://127.0.0.1:9090/readyz", args, stderr)
	if !ok {
		return exitUsage
	}
	u, err := url.Parse(target)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		fmt.Fprintf(stderr, "endpoints health: %q: want an http or https URL, such as http://127.0.0.1:9090/readyz\n", target)
		return exitUsage
	}
	if *timeout <= 0 {
		fmt.Fprintf(stderr, "endpoints health: --timeout %v: want a positive duration, such as 5s\n", *timeout)
		return exitUsage
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		fmt.Fprintf(stderr, "endpoints health: %v\n", err)
		return exitUsage
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Do(req)
	if err != nil {
		fmt.Fprintf(stderr, "endpoints health: %v\n", err)
		return exitError
	}
	defer res.Body.Close()
	// The first line of the body says which check failed (/readyz names it).
	body, _ := io.ReadAll(io.LimitReader(res.Body, 512))
	if res.StatusCode < 200 || res.StatusCode > 299 {
		fmt.Fprintf(stderr, "endpoints health: GET %s: %s %s\n", u.Redacted(), res.Status, firstLine(body))
		return exitError
	}
	fmt.Fprintf(stdout, "%s %s\n", res.Status, firstLine(body))
	return 0
}

// firstLine is the first line of b, without its newline.
func firstLine(b []byte) string {
	for i, c := range b {
		if c == '\n' || c == '\r' {
			return string(b[:i])
		}
	}
	return string(b)
}
