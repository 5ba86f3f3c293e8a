import { asFunction, asValue, createContainer, InjectionMode, Lifetime, type AwilixContainer } from 'awilix';
import { StartupError } from './errors.ts';

/**
 * Services by key. Plugins extend this interface (declaration merging) so that
 * `resolve('auth.sessions')` is typed without importing the implementation.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface ServiceMap {}

export type ServiceKey = keyof ServiceMap & string;
export type Resolve = <K extends string>(key: K) => K extends keyof ServiceMap ? ServiceMap[K] : unknown;

export type ServiceFactory<T> = (resolve: Resolve) => T;

export const KERNEL = 'kernel';
/** Keys that exist only inside a request scope. */
export const SCOPED_KEYS = ['ctx', 'principal', 'requestId'] as const;

interface Ownership {
  owner: string;
  /** Plugins that may resolve this key besides its owner; undefined = everyone (kernel keys). */
  exported: boolean;
}

/**
 * A thin layer over awilix (strict mode): explicit namespaced keys, ownership per key,
 * and cross-plugin resolution allowed only through declared exports and dependencies.
 */
export class KernelContainer {
  readonly awilix: AwilixContainer;
  private readonly owners = new Map<string, Ownership>();
  private readonly allowed = new Map<string, Set<string>>();

  constructor() {
    this.awilix = createContainer({ injectionMode: InjectionMode.PROXY, strict: true });
  }

  /** Declares which plugins `pluginId` may resolve from (its dependencies). */
  setDependencies(pluginId: string, dependencyIds: Iterable<string>): void {
    this.allowed.set(pluginId, new Set(dependencyIds));
  }

  provideKernel(key: string, value: unknown): void {
    this.claim(key, KERNEL, true);
    this.awilix.register(key, asValue(value));
  }

  provide<T>(pluginId: string, key: string, factory: ServiceFactory<T>, exported: boolean, scoped = false): void {
    this.claim(key, pluginId, exported);
    // awilix hands the factory the cradle of the container resolving it (root or request scope).
    this.awilix.register(
      key,
      asFunction((cradle: Record<string, unknown>) => factory(this.guard(pluginId, (k) => cradle[k])), {
        lifetime: scoped ? Lifetime.SCOPED : Lifetime.SINGLETON,
      }),
    );
  }

  owner(key: string): string | undefined {
    return this.owners.get(key)?.owner;
  }

  /** A resolver that enforces what `pluginId` may see. */
  resolverFor(pluginId: string, scope: AwilixContainer = this.awilix): Resolve {
    return this.guard(pluginId, (k) => scope.resolve(k));
  }

  private guard(pluginId: string, get: (key: string) => unknown): Resolve {
    return ((key: string) => {
      this.checkAccess(pluginId, key);
      return get(key);
    }) as Resolve;
  }

  checkAccess(pluginId: string, key: string): void {
    if ((SCOPED_KEYS as readonly string[]).includes(key)) return;
    const own = this.owners.get(key);
    if (!own) throw new StartupError(`Plugin "${pluginId}" resolved unknown service "${key}".`, 'unknown_service', [pluginId]);
    if (own.owner === KERNEL || own.owner === pluginId) return;
    if (!own.exported) {
      throw new StartupError(
        `Plugin "${pluginId}" resolved "${key}", which plugin "${own.owner}" does not export.`,
        'service_not_exported',
        [pluginId, own.owner],
      );
    }
    if (!this.allowed.get(pluginId)?.has(own.owner)) {
      throw new StartupError(
        `Plugin "${pluginId}" resolved "${key}" from plugin "${own.owner}" without declaring a dependency on it.`,
        'undeclared_dependency',
        [pluginId, own.owner],
      );
    }
  }

  private claim(key: string, owner: string, exported: boolean): void {
    const prior = this.owners.get(key);
    if (prior) {
      throw new StartupError(
        `Service key "${key}" is registered by both "${prior.owner}" and "${owner}".`,
        'duplicate_service',
        [prior.owner, owner],
      );
    }
    if (owner !== KERNEL && !key.startsWith(`${owner}.`)) {
      throw new StartupError(`Plugin "${owner}" must namespace its service keys as "${owner}.<name>" (got "${key}").`, 'unnamespaced_service', [owner]);
    }
    this.owners.set(key, { owner, exported });
  }

  createScope(values: Record<string, unknown>): AwilixContainer {
    const scope = this.awilix.createScope();
    for (const [k, v] of Object.entries(values)) scope.register(k, asValue(v));
    return scope;
  }

  async dispose(): Promise<void> {
    await this.awilix.dispose();
  }
}
