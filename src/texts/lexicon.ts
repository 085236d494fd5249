/**
 * Synthetic PHI vocabulary, shared by the clinical-note generator (what loadproof sends) and the
 * mock's rules-based detector (what the mock finds), so generated notes carry PHI the mock can
 * find. Every name here is invented for testing; none belongs to a record.
 */
export const FIRST_NAMES = [
  'James', 'Mary', 'Robert', 'Patricia', 'John', 'Jennifer', 'Michael', 'Linda', 'David', 'Elizabeth',
  'William', 'Barbara', 'Richard', 'Susan', 'Joseph', 'Jessica', 'Thomas', 'Sarah', 'Carlos', 'Karen',
  'Daniel', 'Lisa', 'Matthew', 'Nancy', 'Anthony', 'Betty', 'Mark', 'Sandra', 'Steven', 'Ashley',
  'Andrew', 'Emily', 'Kenji', 'Priya', 'Omar', 'Fatima', 'Wei', 'Aisha', 'Luis', 'Olga',
] as const;

export const LAST_NAMES = [
  'Smith', 'Johnson', 'Williams', 'Brown', 'Jones', 'Garcia', 'Miller', 'Davis', 'Rodriguez', 'Martinez',
  'Hernandez', 'Lopez', 'Gonzalez', 'Wilson', 'Anderson', 'Thomas', 'Taylor', 'Moore', 'Jackson', 'Martin',
  'Lee', 'Perez', 'Thompson', 'White', 'Harris', 'Sanchez', 'Clark', 'Ramirez', 'Lewis', 'Robinson',
  'Walker', 'Young', 'Allen', 'King', 'Nakamura', 'Patel', 'Haddad', 'Okafor', 'Novak', 'Chen',
] as const;

export const STREET_NAMES = [
  'Maple', 'Oak', 'Cedar', 'Pine', 'Elm', 'Washington', 'Lake', 'Hill', 'Park', 'Sunset', 'River', 'Church',
] as const;

export const STREET_SUFFIXES = ['Street', 'Avenue', 'Road', 'Lane', 'Drive', 'Boulevard', 'Court'] as const;

export const CITIES = [
  ['Springfield', 'IL'], ['Riverton', 'WY'], ['Fairview', 'OR'], ['Madison', 'WI'], ['Georgetown', 'TX'],
  ['Clinton', 'NY'], ['Salem', 'MA'], ['Franklin', 'TN'], ['Greenville', 'SC'], ['Bristol', 'CT'],
] as const;

export const MONTHS = [
  'January', 'February', 'March', 'April', 'May', 'June',
  'July', 'August', 'September', 'October', 'November', 'December',
] as const;
