//go:build !unix

package realollama

import (
	"os"
	"os/exec"
)

func setProcessGroup(*exec.Cmd) {}

// terminate stops the server; without Unix signals there is no gentler way.
func terminate(cmd *exec.Cmd) error { return cmd.Process.Signal(os.Kill) }

func kill(cmd *exec.Cmd) error { return cmd.Process.Kill() }
