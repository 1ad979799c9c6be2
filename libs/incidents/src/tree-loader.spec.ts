import { TreeLoader } from './incident-loaders';

describe('TreeLoader', () => {
  function loader() {
    const batches: string[][] = [];
    const l = new TreeLoader<string>(async (keys) => {
      batches.push([...keys]);
      return keys.map((k) => `loaded ${k}`);
    });
    return { l, batches };
  }

  it('hands back a primed value as it is, and loads (batched) what was not primed', async () => {
    const { l, batches } = loader();
    l.prime('a', 'primed a');
    expect(l.get('a')).toBe('primed a');
    const b = l.get('b');
    const c = l.get('c');
    expect(b).toBeInstanceOf(Promise);
    expect(await b).toBe('loaded b');
    expect(await c).toBe('loaded c');
    expect(batches).toEqual([['b', 'c']]);
    // load() answers a primed key from the value too, without a batch.
    expect(await l.load('a')).toBe('primed a');
    expect(batches).toHaveLength(1);
  });

  it('keeps the first value primed for a key, and forgets it when cleared', async () => {
    const { l } = loader();
    l.prime('a', 'first').prime('a', 'second');
    expect(l.get('a')).toBe('first');
    l.clear('a');
    expect(await l.get('a')).toBe('loaded a');
    l.prime('b', 'primed b');
    l.clearAll();
    expect(await l.get('b')).toBe('loaded b');
  });

  it('keeps a primed error as DataLoader does: a rejected load', async () => {
    const { l } = loader();
    l.prime('a', new Error('gone'));
    await expect(l.get('a')).rejects.toThrow('gone');
  });
});
