"""Pattern hints: the place of the wrong elements names the likely bug."""
import numpy as np

from kernelwright.tools.referee.patterns import pattern_hints


def hints_for(bad, *, out=None, ref=None, itemsize=4, block_dim=0):
    ref = np.ones(bad.shape) if ref is None else ref
    out = np.where(bad, 2.0, ref) if out is None else out
    return pattern_hints(bad, out, ref, itemsize=itemsize, block_dim=block_dim)


def test_only_the_tail():
    bad = np.zeros(1000, bool)
    bad[-5:] = True
    (h,) = hints_for(bad)
    assert "only the tail is wrong: the last 5 of 1000" in h and "multiple of the 32-byte block" not in h
    bad = np.zeros(1001, bool)
    bad[-9:] = True
    assert "1001 elements is not a multiple of the 32-byte block (8 elements)" in hints_for(bad)[0]


def test_tail_of_each_row():
    bad = np.zeros((6, 37), bool)
    bad[:, 32:] = True
    (h,) = hints_for(bad)
    assert "tail of each row" in h and "columns 32..36 of 37" in h and "not a multiple of 8" in h


def test_whole_rows_and_the_blocks_that_own_them():
    bad = np.zeros((96, 16), bool)
    bad[90:] = True
    (h,) = hints_for(bad, block_dim=48)
    assert "whole rows are wrong: 6 of 96 rows" in h and "the last 6 rows" in h and "block(s) 45, 46, 47" in h


def test_block_boundaries():
    n, share = 37000, 776              # 48 blocks of 776 elements (the last one short)
    bad = np.zeros(n, bool)
    bad[share - 1::share] = True
    bad[-1] = True
    (h,) = hints_for(bad, block_dim=48)
    assert "multiples of 776 elements" in h and "block or tile boundaries" in h


def test_every_kth_element():
    bad = np.zeros(4096, bool)
    bad[3::16] = True
    bad[4000:] = False
    (h,) = hints_for(bad)
    assert "every 16-th element" in h and "3 mod 16" in h


def test_all_zeros_and_nan():
    ref = np.linspace(1, 2, 64)
    assert "all zeros" in hints_for(np.ones(64, bool), out=np.zeros(64), ref=ref)[0]
    out = ref.copy()
    out[[5, 40]] = np.nan
    bad = np.isnan(out)
    hs = hints_for(bad, out=out, ref=ref)
    assert any("2 NaN where the reference is finite" in h and "division by zero" in h for h in hs)


def test_scattered_errors_get_no_made_up_pattern():
    bad = np.zeros(1000, bool)
    bad[[3, 500, 777]] = True
    assert hints_for(bad) == []
