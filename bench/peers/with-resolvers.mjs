// Promise.withResolvers arrived in Node 22; PostGraphile v5 uses it. Loaded with `node --import`.
Promise.withResolvers ??= () => { let resolve, reject; const promise = new Promise((a, b) => { resolve = a; reject = b; }); return { promise, resolve, reject }; };
