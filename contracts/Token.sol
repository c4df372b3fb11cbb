// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// chainperf's ERC20 load token: the ERC20 interface (totalSupply,
/// balanceOf, transfer, allowance, approve, transferFrom and their events)
/// and distribute, which hands the same amount to many holders in one
/// call, so that a run funds thousands of wallets in a few txs. The whole
/// supply is the deployer's at first.
contract Token {
    string public constant name = "chainperf token";
    string public constant symbol = "CPT";
    uint8 public constant decimals = 18;
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    constructor(uint256 supply) {
        totalSupply = supply;
        balanceOf[msg.sender] = supply;
        emit Transfer(address(0), msg.sender, supply);
    }

    function transfer(address to, uint256 value) external returns (bool) {
        _move(msg.sender, to, value);
        return true;
    }

    function approve(address spender, uint256 value) external returns (bool) {
        allowance[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
        return true;
    }

    function transferFrom(address from, address to, uint256 value) external returns (bool) {
        uint256 allowed = allowance[from][msg.sender];
        require(allowed >= value, "allowance");
        if (allowed != type(uint256).max) {
            allowance[from][msg.sender] = allowed - value;
        }
        _move(from, to, value);
        return true;
    }

    function distribute(address[] calldata to, uint256 each) external {
        for (uint256 i = 0; i < to.length; i++) {
            _move(msg.sender, to[i], each);
        }
    }

    function _move(address from, address to, uint256 value) internal {
        uint256 held = balanceOf[from];
        require(held >= value, "balance");
        unchecked {
            balanceOf[from] = held - value;
        }
        balanceOf[to] += value;
        emit Transfer(from, to, value);
    }
}
