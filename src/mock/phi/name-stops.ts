/**
 * Capitalised words that end a person's name rather than continue it: months and weekdays (dates are their own
 * entities), and words that open a sentence or head a section in a clinical note. Words, not names: the names
 * come from a package (name-lexicon.ts).
 */
const WORDS = `
january february march april may june july august september october november december
jan feb mar apr jun jul aug sep sept oct nov dec
monday tuesday wednesday thursday friday saturday sunday mon tue wed thu fri sat sun
the a an and or but of for to in on at by with from as is was were be been has had have he she they his her
their it its this that these those we our you your i if then so no not yes per via re
patient patients pt name names seen referred referral admitted admission discharge discharged summary note notes
history plan assessment impression diagnosis diagnoses exam examination follow followed call called contact
contacted spoke signed attending resident nurse physician doctor provider clinic hospital center centre medical
health department unit ward room service services emergency care primary family social medications medication
allergies allergy labs lab vitals vital signs review systems chief complaint present illness past surgical
today yesterday tomorrow tonight morning evening afternoon daily weekly
dear sincerely regards thank thanks please kind best
mother father wife husband son daughter sister brother spouse partner guardian friend caregiver
street avenue road lane drive boulevard court terrace place way circle parkway highway
apt apartment suite unit floor
phone fax email tel mobile cell home work office address city state zip
mrn dob ssn id account member policy group insurance medicare medicaid license serial device
`;

/**
 * Stop words that are also people's names (May, June, Ward, Lane): a part of a name that its other parts, a title,
 * a cue or a credential say is one, and never a name by themselves.
 */
export const NAME_LIKE_WORDS: ReadonlySet<string> = new Set(
  'january february march april may june july august september october november december jan thu ward lane court dean an sister'.split(
    ' ',
  ),
);

export const STOP_WORDS: ReadonlySet<string> = new Set(WORDS.split(/\s+/).filter((w) => w !== ''));
