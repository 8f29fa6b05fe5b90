-- bench.lua: what a Lua program spends its time on, for bench/realprogs.sh: calls and
-- recursion, closures and method calls, tables, strings, numbers, sorting with a Lua
-- comparator (C calling back into the interpreter). Deterministic: one checksum line
-- per part, the same for every build. `lua bench.lua [SCALE-PERCENT]`
local scale = tonumber(arg and arg[1] or "100") / 100
local function n(x) return math.max(1, math.floor(x * scale)) end

local function fib(k) if k < 2 then return k end return fib(k - 1) + fib(k - 2) end

-- a small xorshift generator (integers are 64-bit in Lua 5.4)
local seed = 88172645463325252
local function rand(m)
	seed = seed ~ (seed << 13); seed = seed ~ (seed >> 7); seed = seed ~ (seed << 17)
	return (seed >> 1) % m
end

local out = {}

-- recursion
local f = 0
for _ = 1, n(4) do f = f + fib(24) end
out[#out + 1] = "fib " .. f

-- objects: closures and method calls
local Account = {}
Account.__index = Account
function Account.new(b) return setmetatable({balance = b}, Account) end
function Account:deposit(v) self.balance = self.balance + v end
function Account:withdraw(v) if v <= self.balance then self.balance = self.balance - v end end
local accts = {}
for i = 1, 100 do accts[i] = Account.new(i) end
for i = 1, n(300000) do
	local a = accts[i % 100 + 1]
	if i % 3 == 0 then a:withdraw(i % 50) else a:deposit(i % 70) end
end
local total = 0
for i = 1, 100 do total = total + accts[i].balance end
out[#out + 1] = "accounts " .. total

-- tables: a hash of strings, then arrays
local h = {}
for i = 1, n(100000) do h["k" .. (i % 5000)] = (h["k" .. (i % 5000)] or 0) + i end
local hs = 0
for k, v in pairs(h) do hs = (hs + #k * v) % 1000000007 end
out[#out + 1] = "hash " .. hs

-- strings: building, formatting, pattern matching
local parts = {}
for i = 1, n(20000) do parts[#parts + 1] = string.format("%d:%x;", i, i * 7) end
local s = table.concat(parts)
local cnt = 0
for a, b in s:gmatch("(%d+):(%x+);") do if tonumber(b, 16) % 3 == 0 then cnt = cnt + 1 end end
local g = s:gsub("%d", "#")
out[#out + 1] = "strings " .. #s .. " " .. cnt .. " " .. #g

-- sorting with a Lua comparator: table.sort (C) calls back for each comparison
local arr = {}
for i = 1, n(60000) do arr[i] = rand(1000000) end
table.sort(arr, function(x, y) return x > y end)
local ok = true
for i = 2, #arr do if arr[i - 1] < arr[i] then ok = false end end
out[#out + 1] = "sort " .. tostring(ok) .. " " .. arr[1] .. " " .. arr[#arr]

-- numbers: a spectral-norm style double loop
local function A(i, j) local ij = i + j - 1; return 1.0 / (ij * (ij - 1) * 0.5 + i) end
local N = n(120)
local u, v = {}, {}
for i = 1, N do u[i] = 1 end
for _ = 1, 5 do
	for i = 1, N do local t = 0 for j = 1, N do t = t + A(i, j) * u[j] end v[i] = t end
	for i = 1, N do local t = 0 for j = 1, N do t = t + A(j, i) * v[j] end u[i] = t end
end
local vbv, vv = 0, 0
for i = 1, N do vbv = vbv + u[i] * v[i]; vv = vv + v[i] * v[i] end
out[#out + 1] = string.format("spectral %.9f", math.sqrt(vbv / vv))

print(table.concat(out, "\n"))
