/** Query parameters that carry the page number (counted from FIRST_PAGE). */
export declare const PAGE_NUMBER_PARAMETERS: readonly string[];
/** Query parameters that carry the cursor: the `id` of the last item read. */
export declare const CURSOR_PARAMETERS: readonly string[];
/** Query parameters that carry the page size. */
export declare const PAGE_SIZE_PARAMETERS: readonly string[];
/** The number of the first page. */
export declare const FIRST_PAGE = 1;
/** Fields of a list answer's wrapper. When it holds several arrays, the items are in the first of ITEM_FIELDS. */
export declare const ITEM_FIELDS: readonly string[];
/** Fields that count every item of the list (the first present is the total). */
export declare const TOTAL_FIELDS: readonly string[];
/** Fields that give the page's number, and its size. */
export declare const PAGE_NUMBER_FIELDS: readonly string[];
export declare const PAGE_SIZE_FIELDS: readonly string[];
/** What pagingOf reads of a parameter (resolved: no `$ref`): its name, where it goes, its schema's `default` and `maximum`. */
export interface PagingParameter {
    name: string;
    in: string;
    schema?: {
        readonly [keyword: string]: unknown;
    } | undefined;
}
export interface Paging {
    /** `page`: page numbers from FIRST_PAGE; `cursor`: the `id` of the last item read. */
    style: 'page' | 'cursor';
    /** The query parameter of the page number, or of the cursor. */
    page: string;
    /** The query parameter of the page size, if the operation has one. */
    size: string | null;
    /** The page number when none is sent: its schema's default, else FIRST_PAGE. */
    defaultPage: number;
    /** The page size when none is sent (its schema's default); null: every item after the start. */
    defaultSize: number | null;
    /** The largest page size: its schema's maximum, else its default (a larger one is never documented). */
    maxSize: number | null;
}
/**
 * How an operation with these parameters pages, or undefined when it does not: it pages when it has a
 * page-number or a cursor query parameter (a page number wins when it has both), optionally with a page size.
 */
export declare function pagingOf(parameters: readonly PagingParameter[]): Paging | undefined;
