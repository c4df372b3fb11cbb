package observe

import (
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// A code-0 result whose data holds Cosmos EVM's MsgEthereumTxResponse
// with a vm_error is a reverted EVM tx; without one, or with another
// message's response, it is not.
func TestVMError(t *testing.T) {
	response := func(url, vmErr string) []byte {
		var r []byte
		r = protowire.AppendTag(r, 1, protowire.BytesType)
		r = protowire.AppendString(r, "0xabc")
		r = protowire.AppendTag(r, 3, protowire.BytesType)
		r = protowire.AppendBytes(r, []byte{1, 2})
		if vmErr != "" {
			r = protowire.AppendTag(r, 4, protowire.BytesType)
			r = protowire.AppendString(r, vmErr)
		}
		r = protowire.AppendTag(r, 5, protowire.VarintType)
		r = protowire.AppendVarint(r, 34567)
		var a []byte
		a = protowire.AppendTag(a, 1, protowire.BytesType)
		a = protowire.AppendString(a, url)
		a = protowire.AppendTag(a, 2, protowire.BytesType)
		a = protowire.AppendBytes(a, r)
		var d []byte
		d = protowire.AppendTag(d, 2, protowire.BytesType)
		return protowire.AppendBytes(d, a)
	}
	for _, c := range []struct {
		data []byte
		want string
	}{
		{response(evmResponse, "execution reverted"), "execution reverted"},
		{response(evmResponse, ""), ""},
		{response("/cosmos.bank.v1beta1.MsgSendResponse", "execution reverted"), ""},
		{[]byte{0xff, 0xff}, ""},
		{nil, ""},
	} {
		if got := vmError(c.data); got != c.want {
			t.Errorf("vmError(%x) = %q; want %q", c.data, got, c.want)
		}
	}
}
