package auth

// UnsetError is a setting of the app's security that has no value where
// the app was loaded, and that the environment of a deployment gives: a
// security scheme endpoints.json configures no verifier for (the
// deployment's ENDPOINTS_SECURITY does), or a jwt "secret" whose
// environment variable is not set and whose file does not exist. Values
// that are there but wrong (a secret too short, a URL over plain http)
// are other errors.
//
// A host that serves refuses the app with it. A host that loads an app
// only to read or check it ([Env].Offline: `endpoints build`, `check`, in
// a CI job that lacks the deployment's settings on purpose) reports it as
// a warning instead (package versionload), naming Setting and [UnsetError.Source].
type UnsetError struct {
	// Setting names what is unset, dotted: "security.bearer",
	// "security.bearer.jwt.secret".
	Setting string
	// Env is the environment variable that gives it where the app is
	// deployed: "ENDPOINTS_SECURITY", "USERS_JWT_SECRET"; "" when only a
	// file does.
	Env string
	// File is the file that gives it where the app is deployed, as
	// configured: "/run/secrets/users-jwt"; "" when none does.
	File string
	// Err says what is missing and what to give.
	Err error
}

// Source names what gives the setting where the app is deployed: the
// environment variable, the file, or both ("USERS_JWT_SECRET or the file
// /run/secrets/users-jwt").
func (e *UnsetError) Source() string {
	switch {
	case e.File == "":
		return e.Env
	case e.Env == "":
		return "the file " + e.File
	}
	return e.Env + " or the file " + e.File
}

// Error is Err's text.
func (e *UnsetError) Error() string { return e.Err.Error() }

// Unwrap returns Err.
func (e *UnsetError) Unwrap() error { return e.Err }
