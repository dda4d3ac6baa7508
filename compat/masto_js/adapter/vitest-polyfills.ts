// The suite's own polyfill, and Promise.withResolvers for Node 20 (Node 22 has it).
import { installIntoGlobal } from "iterator-helpers-polyfill";
installIntoGlobal();

if (!("withResolvers" in Promise)) {
  Object.assign(Promise, {
    withResolvers<T>() {
      let resolve!: (value: T) => void;
      let reject!: (reason?: unknown) => void;
      const promise = new Promise<T>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      return { promise, resolve, reject };
    },
  });
}
