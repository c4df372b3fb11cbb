// Command floor measures the least CPU a generator can spend to send every
// tx at its own time: one thread, locked, sleeping in nanosleep to each
// tx's time (evenly spaced), one write of one broadcast_tx_sync request a
// tx on one keep-alive connection, and no parsing, ledger or hashing. With
// -read=poll the answers are read by the same thread without blocking
// after each write (one wake-up a tx); with -read=goroutine a goroutine
// blocks on them as a Go client does (two). It prints its own CPU per
// 1,000 txs and the p99 of how late it sent them. bench/floor.sh runs it
// beside chainperf and loadtime against the same sink.
//
//	go run ./bench/floor -url 127.0.0.1:27700 -rate 1000 -duration 10s -read poll
package main

import (
	"bytes"
	"flag"
	"fmt"
	"log"
	"net"
	"runtime"
	"slices"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

func main() {
	addr := flag.String("url", "127.0.0.1:27700", "the sink's host:port")
	rate := flag.Float64("rate", 1000, "txs a second")
	length := flag.Duration("duration", 10*time.Second, "how long to send")
	read := flag.String("read", "poll", "poll (the pacing thread reads) or goroutine (a goroutine blocks on answers)")
	quantum := flag.Duration("quantum", 0, "sleep at least this long between wake-ups; a wake-up sends every tx due by then in one write")
	flag.Parse()
	if *read != "poll" && *read != "goroutine" {
		log.Fatalf("-read %q: poll or goroutine", *read)
	}
	c, err := net.Dial("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	raw, err := c.(*net.TCPConn).SyscallConn()
	if err != nil {
		log.Fatal(err)
	}
	var fd int
	_ = raw.Control(func(f uintptr) { fd = int(f) })
	body := `{"jsonrpc":"2.0","id":1,"method":"broadcast_tx_sync","params":{"tx":"Y3A9MTIzNDU2Nzg5MA=="}}`
	req := []byte(fmt.Sprintf("POST / HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", *addr, len(body), body))

	answers := make(chan int, 1)
	var count counter
	if *read == "goroutine" {
		go func() {
			buf := make([]byte, 64<<10)
			for {
				n, err := c.Read(buf)
				if err != nil {
					answers <- count.n
					return
				}
				count.add(buf[:n])
			}
		}()
	}

	runtime.LockOSThread()
	_ = unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0)
	total := int(*rate * length.Seconds())
	gap := time.Duration(float64(time.Second) / *rate)
	lags := make([]time.Duration, 0, total)
	buf := make([]byte, 64<<10)
	start := time.Now()
	var w []byte
	woke := start
	for i := 0; i < total; {
		due := start.Add(time.Duration(i) * gap)
		if d := max(time.Until(due), time.Until(woke.Add(*quantum))); d > 0 {
			ts := unix.NsecToTimespec(d.Nanoseconds())
			unix.RawSyscall(unix.SYS_NANOSLEEP, uintptr(unsafe.Pointer(&ts)), 0, 0)
		}
		woke = time.Now()
		w = w[:0]
		for ; i < total && !start.Add(time.Duration(i)*gap).After(woke); i++ {
			lags = append(lags, woke.Sub(start.Add(time.Duration(i)*gap)))
			w = append(w, req...)
		}
		n, err := unix.Write(fd, w)
		if err == syscall.EAGAIN || err == nil && n < len(w) {
			// The socket's buffer is full: the rest through Go's poller.
			_, err = c.Write(w[max(n, 0):])
		}
		if err != nil {
			log.Fatal(err)
		}
		for *read == "poll" {
			n, err := unix.Read(fd, buf)
			if err == syscall.EAGAIN {
				break
			}
			if err != nil || n == 0 {
				log.Fatalf("reading answers: %v", err)
			}
			count.add(buf[:n])
		}
	}
	answered := 0
	if *read == "poll" {
		_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
		for count.n < total {
			n, err := c.Read(buf)
			if err != nil {
				break
			}
			count.add(buf[:n])
		}
		answered = count.n
	} else {
		time.Sleep(time.Second)
		c.Close()
		answered = <-answers
	}
	var ru unix.Rusage
	_ = unix.Getrusage(unix.RUSAGE_SELF, &ru)
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	slices.Sort(lags)
	fmt.Printf("floor -rate %g -read %s -quantum %s: %d of %d answered, %.4f CPU-s per 1,000 txs (process), p99 lag %.3f ms\n",
		*rate, *read, *quantum, answered, total, cpu.Seconds()/float64(total)*1000, float64(lags[len(lags)*99/100])/1e6)
}

// counter counts answers by their status lines, across reads, without
// allocating (the floor must not pay for its own bookkeeping).
type counter struct {
	n    int
	tail [len(status) - 1]byte // the last bytes read
	held int                   // how many of tail hold bytes
}

const status = "HTTP/1.1 "

func (c *counter) add(b []byte) {
	// A line that starts in the last read: in tail + the head of b (too
	// short to hold one whole).
	var edge [2 * (len(status) - 1)]byte
	e := append(append(edge[:0], c.tail[len(c.tail)-c.held:]...), b[:min(len(b), len(c.tail))]...)
	c.n += bytes.Count(e, []byte(status)) + bytes.Count(b, []byte(status))
	if len(b) >= len(c.tail) {
		copy(c.tail[:], b[len(b)-len(c.tail):])
		c.held = len(c.tail)
		return
	}
	e = append(append(edge[:0], c.tail[len(c.tail)-c.held:]...), b...)
	c.held = min(len(e), len(c.tail))
	copy(c.tail[len(c.tail)-c.held:], e[len(e)-c.held:])
}
