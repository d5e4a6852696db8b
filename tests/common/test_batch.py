"""sample_legal: always legal, uniform, -1 on rows without a legal action."""

import numpy as np

from aerodeck.envs.common.batch import sample_legal


def test_sample_legal_only_picks_legal_actions_for_any_width():
    rng = np.random.default_rng(0)
    for width in (1, 5, 8, 13, 534):
        mask = rng.random((300, width)) < 0.2
        mask[:, rng.integers(width)] = True
        actions = sample_legal(mask, rng.random(300))
        assert mask[np.arange(300), actions].all()


def test_sample_legal_is_uniform_over_legal_actions():
    mask = np.zeros((20000, 19), bool)
    mask[:, [0, 3, 8, 9, 17, 18]] = True
    actions = sample_legal(mask, np.random.default_rng(1).random(20000))
    counts = np.bincount(actions, minlength=19)[[0, 3, 8, 9, 17, 18]]
    assert counts.sum() == 20000
    assert counts.min() > 3000 and counts.max() < 3700  # expected 3333 each


def test_sample_legal_maps_u_to_the_kth_legal_action():
    mask = np.array([[False, True, True, False, True]] * 3)
    assert sample_legal(mask, np.array([0.0, 0.5, 0.99])).tolist() == [1, 2, 4]


def test_rows_without_legal_action_get_minus_one():
    mask = np.zeros((3, 10), bool)
    mask[1, 4] = True
    assert sample_legal(mask, np.array([0.3, 0.3, 0.3])).tolist() == [-1, 4, -1]


def test_the_padded_mask_buffer_is_sampled_without_its_padding():
    from aerodeck.envs.common.batch import padded_mask

    buffer, mask = padded_mask(4, 13)
    assert buffer.shape == (4, 16) and mask.shape == (4, 13) and np.shares_memory(buffer, mask)
    mask[:, 12] = True
    assert sample_legal(buffer, np.array([0.0, 0.3, 0.6, 0.99])).tolist() == [12, 12, 12, 12]


def test_batched_state_take_repeat_put_concatenate():
    import dataclasses

    from aerodeck.envs.common.batch import BatchedState

    @dataclasses.dataclass
    class Toy(BatchedState):
        a: np.ndarray
        b: np.ndarray

    toy = Toy(a=np.arange(3), b=np.arange(6).reshape(3, 2))
    assert toy.batch_size == 3
    assert toy.take([2, 0]).a.tolist() == [2, 0]
    assert toy.take(slice(1, 3)).b.tolist() == [[2, 3], [4, 5]]
    assert toy.repeat(2).a.tolist() == [0, 0, 1, 1, 2, 2]
    copy = toy.copy()
    copy.put([0], toy.take([2]))
    assert copy.a.tolist() == [2, 1, 2] and toy.a.tolist() == [0, 1, 2]
    assert Toy.concatenate([toy, toy.take([1])]).a.tolist() == [0, 1, 2, 1]
