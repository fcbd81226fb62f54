package config

import (
	"fmt"
	"strings"
	"time"

	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/syncer"
)

// Environment variables for sync and encryption at rest.
const (
	envSyncURL       = "MNEME_SYNC_URL"
	envSyncToken     = "MNEME_SYNC_TOKEN"
	envSyncInterval  = "MNEME_SYNC_INTERVAL"
	envTursoURL      = "TURSO_DATABASE_URL"
	envTursoToken    = "TURSO_AUTH_TOKEN"
	envEncryptionKey = "MNEME_ENCRYPTION_KEY"
)

// SyncSettings is the [sync] table of the config file.
type SyncSettings struct {
	// URL of the libSQL sync server: libsql://DB-ORG.turso.io.
	URL string `toml:"url"`
	// Token authenticates; it is never printed or logged.
	Token string `toml:"token"`
	// Interval between background syncs, e.g. "5m"; "off" turns them off.
	Interval string `toml:"interval"`

	// Every is Interval parsed (negative: off).
	Every time.Duration `toml:"-"`
}

// syncConfig are the config keys for sync and encryption at rest.
type syncConfig struct {
	Sync SyncSettings `toml:"sync"`
	// EncryptionKey encrypts the database file at rest; never printed or logged.
	EncryptionKey string `toml:"encryption_key"`
	// SecretsInFile: the config file holds a sync token or an encryption
	// key (doctor warns when others may read it).
	SecretsInFile bool `toml:"-"`
}

// resolve applies the environment over the file: MNEME_SYNC_* first, then
// TURSO_DATABASE_URL / TURSO_AUTH_TOKEN.
func (c *syncConfig) resolve(l layers) {
	c.SecretsInFile = strings.TrimSpace(c.Sync.Token) != "" || strings.TrimSpace(c.EncryptionKey) != "" // as the file has them
	l.text("", "", envTursoURL, "sync.url", &c.Sync.URL)
	l.text("", "", envSyncURL, "sync.url", &c.Sync.URL)
	l.text("", "", envTursoToken, "sync.token", &c.Sync.Token)
	l.text("", "", envSyncToken, "sync.token", &c.Sync.Token)
	c.Sync.URL, c.Sync.Token = strings.TrimSpace(c.Sync.URL), strings.TrimSpace(c.Sync.Token)
	// A URL may carry a token or a password: where it came from is named
	// without its value (the error quotes it with the secrets taken out).
	where := "config " + l.file + ": sync.url"
	for _, env := range []string{envTursoURL, envSyncURL} {
		if l.getenv(env) != "" {
			where = env
		}
	}
	l.text("", "", envEncryptionKey, "encryption_key", &c.EncryptionKey)
	iv := l.text("", "", envSyncInterval, "sync.interval", &c.Sync.Interval)
	every, err := parseSyncInterval(c.Sync.Interval)
	if err != nil {
		l.bad(fmt.Errorf("%s: %w", iv, err))
		c.Sync.Interval, every = "", syncer.DefaultSyncInterval
	}
	c.Sync.Every = every
	if c.Sync.URL != "" {
		if _, _, err := syncer.NormalizeSyncURL(c.Sync.URL); err != nil {
			l.bad(fmt.Errorf("%s: %w", where, err))
			c.Sync.URL = ""
		}
	}
	if c.Sync.URL != "" && c.EncryptionKey != "" {
		// Refused as any bad setting, by every command: nothing would sync.
		key := "config " + l.file + ": encryption_key" // named, never quoted
		if l.getenv(envEncryptionKey) != "" {
			key = envEncryptionKey
		}
		l.bad(fmt.Errorf("%s with %s: %w", where, key, memory.ErrEncryptedReplica))
	}
}

// parseSyncInterval reads a [sync] interval: "" for the default, "off"
// (or "0", "never") for none (-1), or a duration of at least 10s.
func parseSyncInterval(s string) (time.Duration, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "":
		return syncer.DefaultSyncInterval, nil
	case "off", "0", "never":
		return -1, nil
	}
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil || d < minSyncInterval {
		return 0, fmt.Errorf("%w: want a duration of at least %s (e.g. 5m) or \"off\"", ErrConfigValue, minSyncInterval)
	}
	return d, nil
}

// minSyncInterval bounds the background sync's pace.
const minSyncInterval = 10 * time.Second

// CheckSyncInterval checks `sync init --interval` the way Load checks the
// [sync] interval ("" for the default, "off", or at least 10s).
func CheckSyncInterval(interval string) error {
	if _, err := parseSyncInterval(interval); err != nil {
		return fmt.Errorf("%s: %w", fromFlag("interval", interval), err)
	}
	return nil
}

// TokenFromEnv is the sync token in the environment: MNEME_SYNC_TOKEN,
// else TURSO_AUTH_TOKEN, as given ("" when neither is set).
func TokenFromEnv(getenv func(string) string) string {
	return first(getenv(envSyncToken), getenv(envTursoToken))
}
