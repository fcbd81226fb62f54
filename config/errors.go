package config

import "errors"

// ErrConfigValue is returned for a setting that is not a value it takes
// (out of its range, not a number, not a level), whether it
// came from a flag, the environment or the config file.
var ErrConfigValue = errors.New("invalid value")
