// Command mneme is a terminal chat assistant with long-term memory.
//
// This file is wiring only: the commands live in package cli.
package main

import (
	"os"

	"github.com/mneme-dev/mneme/cli"
)

func main() { os.Exit(cli.Main(os.Args[1:])) }
