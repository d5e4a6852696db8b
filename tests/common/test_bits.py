"""Packed sets: one word (up to 64 items) and rows of words; packing, counting, the k-th item."""

import numpy as np

from aerodeck.envs.common.bits import (
    BELOW, BIT, kth_bit, kth_member, pack_bits, pack_set, popcount, set_size, unpack_bits, unpack_words,
)


def test_pack_and_unpack_are_inverse_for_any_width():
    rng = np.random.default_rng(0)
    for width in (1, 7, 48, 64):
        flags = rng.random((5, 3, width)) < 0.4
        words = pack_bits(flags)
        assert words.shape == (5, 3) and words.dtype == np.uint64
        assert np.array_equal(unpack_bits(words, width), flags)
        assert np.array_equal(popcount(words), flags.sum(-1))


def test_unpack_words_gives_all_64_bits_of_each_word_lowest_first():
    words = np.random.default_rng(3).integers(0, 2**63, size=(5, 3), dtype=np.uint64) | np.uint64(1 << 63)
    bits = unpack_words(words)
    assert bits.shape == (5, 3, 64) and bits.dtype == np.uint8
    assert np.array_equal(bits.view(bool), unpack_bits(words, 64))
    assert np.array_equal(unpack_words(BIT[:, None])[:, 0], np.eye(64, dtype=np.uint8))


def test_bit_i_is_item_i():
    assert pack_bits(np.eye(64, dtype=bool)).tolist() == BIT.tolist()
    assert int(BELOW[5]) == 0b11111 and int(BELOW[0]) == 0


def test_kth_bit_is_the_kth_item_in_id_order():
    rng = np.random.default_rng(1)
    flags = rng.random((500, 48)) < 0.3
    flags[:, 7] = True
    words = pack_bits(flags)
    k = (rng.random(500) * flags.sum(1)).astype(np.int64)
    expected = [np.flatnonzero(row)[i] for row, i in zip(flags, k)]
    assert kth_bit(words, k).tolist() == expected


def test_sets_wider_than_a_word_count_and_index_in_id_order():
    rng = np.random.default_rng(2)
    for width in (1, 64, 65, 130):
        flags = rng.random((300, width)) < 0.4
        flags[:, -1] = True
        words = pack_set(flags)
        assert words.shape == (300, -(-width // 64)) and words.dtype == np.uint64
        assert set_size(words).tolist() == flags.sum(1).tolist()
        k = (rng.random(300) * flags.sum(1)).astype(np.int64)
        assert kth_member(words, k).tolist() == [np.flatnonzero(row)[i] for row, i in zip(flags, k)]
