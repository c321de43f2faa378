export type { SecretStore, SecretAvailability, SecretErrorKind } from './types';
export { SecretError, cleanNativeMessage } from './types';
export { MemorySecretStore, UnavailableSecretStore } from './memory';
export { KeyringSecretStore, unavailableSentence, type KeyringOptions } from './keyring';
export { SettingsFile, DEFAULT_SETTINGS, type SettingsData, type KeyMeta } from './settings-file';
export { KeyRing, MAX_KEYS, MAX_KEY_NAME, ENV_KEY_NAME, keyMode, type KeyRingOptions } from './keys';
