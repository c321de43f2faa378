import { contextBridge } from 'electron';

contextBridge.exposeInMainWorld('loupe', {});
