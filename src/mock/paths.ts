/**
 * The mock's own endpoints besides the API's: apart from the routes so that a client can name them without loading the
 * mock.
 */
export const STATS_PATH = '/__mock/stats';
export const LOG_PATH = '/__mock/log';
