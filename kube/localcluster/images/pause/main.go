// Command pause is the pod sandbox ("pause") image's program: it holds the
// pod's namespaces until it is told to end.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGTERM, syscall.SIGINT)
	<-c
}
