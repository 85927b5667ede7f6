import { describe, expect, it } from '@jest/globals';
import { makingWay, type TurnHolder } from '../src/work/scrape-lease.handler.js';

const holder = (name: string, workspaceId: string, heldMs: number | null, lettingGo = false) => ({
  name,
  workspaceId,
  lettingGo,
  turnLength: () => heldMs,
});
const names = (hs: { name: string }[]) => hs.map((h) => h.name);
const pastTurn = <H extends TurnHolder>(held: H[], turnMs: number) =>
  held.filter((h) => !h.lettingGo && (h.turnLength(0) ?? 0) >= turnMs);

describe('which leases make way at the end of their turn', () => {
  it("takes the turn from the workspace that holds the most slots, not another workspace's one crawl held longer", () => {
    const held = [holder('b1', 'B', 9_000), holder('a1', 'A', 5_000), holder('a2', 'A', 7_000)];
    expect(names(makingWay(pastTurn(held, 1_000), held, 1, 0))).toEqual(['a2']);
  });

  it('counts each lease that makes way against its workspace before choosing the next', () => {
    const held = [
      holder('b1', 'B', 9_000),
      holder('a1', 'A', 5_000),
      holder('a2', 'A', 7_000),
      holder('a3', 'A', 2_000),
    ];
    // A holds 3, then 2 (B 1), then 1 as B does: B's longer-held lease goes third.
    expect(names(makingWay(pastTurn(held, 1_000), held, 3, 0))).toEqual(['a2', 'a1', 'b1']);
  });

  it('between workspaces that hold as many, takes the longest held; never more than wait', () => {
    const held = [holder('b1', 'B', 3_000), holder('a1', 'A', 8_000), holder('c1', 'C', 6_000)];
    expect(names(makingWay(pastTurn(held, 1_000), held, 2, 0))).toEqual(['a1', 'c1']);
    expect(makingWay(pastTurn(held, 1_000), held, 0, 0)).toEqual([]);
    expect(makingWay(pastTurn(held, 1_000), held, -2, 0)).toEqual([]);
  });

  it('counts a workspace by the slots it holds, past its turn or not, but not those already letting go', () => {
    // A holds two slots, one of them not yet past its turn; B one, past its turn and held longer.
    const held = [holder('b1', 'B', 9_000), holder('a1', 'A', 4_000), holder('a2', 'A', 500)];
    expect(names(makingWay(pastTurn(held, 1_000), held, 1, 0))).toEqual(['a1']);
    // One of A's already letting go: A and B hold one each, and B's is held longer.
    const going = [holder('b1', 'B', 9_000), holder('a1', 'A', 4_000), holder('a2', 'A', 8_000, true)];
    expect(names(makingWay(pastTurn(going, 1_000), going, 1, 0))).toEqual(['b1']);
  });

  it("waits for the most-holding workspace's turn rather than take another's: nothing makes way before", () => {
    // A holds three slots, none past its turn (one still waiting for its slot); B's one is past.
    const held = [holder('b1', 'B', 9_000), holder('a1', 'A', 400), holder('a2', 'A', 300), holder('a3', 'A', null)];
    expect(makingWay(pastTurn(held, 1_000), held, 3, 0)).toEqual([]);
    // Once one of A's is past its turn, it makes way; A then holds as many as B, whose lease is
    // held longer than A's other past its turn.
    const later = [holder('b1', 'B', 9_000), holder('a1', 'A', 1_400), holder('a2', 'A', 300)];
    expect(names(makingWay(pastTurn(later, 1_000), later, 2, 0))).toEqual(['a1', 'b1']);
  });
});
