//go:build !linux

package selfcost

func threadCPU(int) (float64, bool)    { return 0, false }
func thisThread() (int, float64, bool) { return 0, 0, false }
