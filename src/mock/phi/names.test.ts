import { describe, expect, it } from 'vitest';

import { findNames } from './names.js';

const names = (text: string): string[] => findNames(text).map((s) => text.slice(s.start, s.end));

describe('findNames', () => {
  it.each([
    ['Patient Margaret A. O’Donnell-Reyes was seen.', ['Margaret A. O’Donnell-Reyes']],
    ['Her daughter Emma Rose Kowalczyk visits.', ['Emma Rose Kowalczyk']],
    ['Theodore J. Whitfield III reports no pain.', ['Theodore J. Whitfield III']],
    ['Seen with Kwame Mensah, Jr. today.', ['Kwame Mensah, Jr.']],
    ['Attending: Priya Natarajan, MD', ['Priya Natarajan']],
    ['Signed, Jonathan R. Blake, DO.', ['Jonathan R. Blake']],
    ['Follow up with Dr. Okonkwo-Bassey next week.', ['Dr. Okonkwo-Bassey']],
    ['Mrs. Fernández-Ortega and Mr. de la Cruz agree.', ['Mrs. Fernández-Ortega', 'Mr. de la Cruz']],
    ['GONZALEZ, MARIA presented with cough.', ['GONZALEZ', 'MARIA']],
    ['Gonzalez, Maria presented with cough.', ['Gonzalez', 'Maria']],
    ['Accompanied by her husband, Ngozi Adeyemi.', ['Ngozi Adeyemi']],
    ["Maria's sister called.", ["Maria's"]],
  ])('%s', (text, expected) => {
    expect(names(text)).toEqual(expected);
  });

  it('never leaves half a name: an unknown surname goes with a known first name, an unknown first name with a known surname', () => {
    expect(names('Plan reviewed with Anand Venkataraman today.')).toEqual(['Anand Venkataraman']);
    expect(names('Chart reviewed: Xiadani Smith is stable.')).toEqual(['Xiadani Smith']);
    expect(names('Kenji Thomas was admitted.')).toEqual(['Kenji Thomas']);
  });

  it('finds no name in headings, sentence openings, acronyms and lone initials', () => {
    expect(
      names(
        'DISCHARGE SUMMARY\n\nPlan: continue metformin. A 45-year-old with CHF and COPD. Discharge Summary follows.',
      ),
    ).toEqual([]);
    expect(names('May 3: Will call if worse. I agree.')).toEqual([]);
  });

  it('does not take a capitalised word at the start of the next sentence', () => {
    expect(names('Seen by Dr. Okafor. Vitals stable.')).toEqual(['Dr. Okafor']);
  });

  it('takes two unknown words for a name when what follows is said of a patient', () => {
    expect(names('DISCHARGE SUMMARY\n\nXiadani Quetzal was admitted on a Monday.')).toEqual(['Xiadani Quetzal']);
    expect(names('Physical Therapy evaluated her.')).toEqual([]);
  });

  it('takes a name told by the people around it, what follows it, and words that are also names', () => {
    expect(names('Dear Dr. Ward, I am referring Hồng Thu Tô for an opinion.')).toEqual(['Dr. Ward', 'Hồng Thu Tô']);
    expect(names('Lives with an aunt, Tavita Ruelas-Ngata, who is 104.')).toEqual(['Tavita Ruelas-Ngata']);
    expect(names('PROGRESS NOTE\n\nOdalys Quenby (MRN 2210-7) arrived.')).toEqual(['Odalys Quenby']);
    expect(names('Electronically signed by Công Án Đào, NP.')).toEqual(['Công Án Đào']);
    expect(names('Plan discussed with Kristie Ward and April Klocko, NP.')).toEqual(['Kristie Ward', 'April Klocko']);
    expect(names('Plan discussed with An Bình Nguyễn and María de los Ángeles Cadena, who agree.')).toEqual([
      'An Bình Nguyễn',
      'María de los Ángeles Cadena',
    ]);
    expect(names('PROGRESS NOTE\n\nOdalys Hernandez cruz (MRN 2210-7) arrived.')).toEqual(['Odalys Hernandez cruz']);
  });

  it('never cuts a name at a lower-case word inside it or after it, nor at an ordinary word between its parts', () => {
    expect(names('Plan discussed with Brayan Kadar rodriguez Pichardo, who agrees.')).toEqual([
      'Brayan Kadar rodriguez Pichardo',
    ]);
    expect(names('at the request of Emily Krauel natera Velázquez, MD.')).toEqual(['Emily Krauel natera Velázquez']);
    expect(names('Plan discussed with Amalia Kranz sans, who agrees.')).toEqual(['Amalia Kranz sans']);
    expect(names('Dictated by Jose Daniel Kranz sans, MD; questions to the ward.')).toEqual(['Jose Daniel Kranz sans']);
    expect(names('Alternate contact Mayte Krauel natera (neighbor) at home.')).toEqual(['Mayte Krauel natera']);
    expect(names('I am referring Miguel Quintero de la cruz, born 5/13/09.')).toEqual(['Miguel Quintero de la cruz']);
    expect(names('Yours sincerely, Dr. Name Leo Brekke, telephone 806.')).toEqual(['Dr. Name Leo Brekke']);
    expect(names('Yours sincerely, Dr. Rosalia Kranz sans Rendón, telephone 806.')).toEqual([
      'Dr. Rosalia Kranz sans Rendón',
    ]);
    expect(names('Referred by Adrian Ward, MD on 30-Dec-2024.')).toEqual(['Adrian Ward']);
    expect(names('Contact: June Collins (daughter).')).toEqual(['June Collins']);
    expect(names('Seen with Thủy Hằng Lý Tô today.')).toEqual(['Thủy Hằng Lý Tô']);
  });

  it('takes no ordinary lower-case word into a name, nor joins two names at one', () => {
    expect(names('Seen with John Smith and Mary Jones today, who agree.')).toEqual(['John Smith', 'Mary Jones']);
    expect(names('Tylenol given to Mary Jones yesterday, who slept.')).toEqual(['Mary Jones']);
    expect(names('Admitted to ICU John Smith was seen.')).toEqual(['John Smith']);
  });

  it('never takes a word that is also a name for a name by itself', () => {
    expect(names('Seen on May 3 by the Ward team. June visit: Lane closed. An MRI was done.')).toEqual([]);
  });

  it('misses, by design, unknown words with nothing beside them that says they are a name', () => {
    expect(names('Xiadani Quetzal called twice. Quetzal was tired.')).toEqual([]);
  });
});
