package results

import (
	"bufio"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
)

// ReadHost reads the facts of this machine from /proc and uname.
func ReadHost() Host {
	h := Host{Cores: runtime.NumCPU()}
	h.Hostname, _ = os.Hostname()
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				h.CPU = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	var si syscall.Sysinfo_t
	if syscall.Sysinfo(&si) == nil {
		h.MemoryMB = int64(si.Totalram) * int64(si.Unit) >> 20
	}
	var u syscall.Utsname
	if syscall.Uname(&u) == nil {
		var b strings.Builder
		for _, c := range u.Release {
			if c == 0 {
				break
			}
			b.WriteByte(byte(c))
		}
		h.Kernel = b.String()
	}
	return h
}

// ReadVersions returns chainperf's version and commit from the build info
// and the CometBFT module version the embedded node carries.
func ReadVersions(binary string) Versions {
	v := Versions{Chainperf: "devel", Go: runtime.Version()}
	comet := "unknown"
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v.Chainperf = bi.Main.Version
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				v.Commit = s.Value
			}
			if s.Key == "vcs.modified" && s.Value == "true" && v.Commit != "" {
				v.Commit += "-dirty"
			}
		}
		for _, d := range bi.Deps {
			if d.Path == "github.com/cometbft/cometbft" {
				comet = d.Version
			}
		}
	}
	v.Node = "embedded CometBFT " + comet + " + kvstore"
	if binary != "" {
		v.Node = binary
	}
	return v
}
