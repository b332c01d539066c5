package classify

import "strings"

// setOf builds a lookup set from whitespace- or comma-separated words.
// Multi-word entries use '_' in the source list and are stored with spaces.
func setOf(words string) map[string]bool {
	m := make(map[string]bool)
	for _, w := range strings.FieldsFunc(words, func(r rune) bool { return r == ' ' || r == '\n' || r == '\t' || r == ',' }) {
		m[strings.ReplaceAll(w, "_", " ")] = true
	}
	return m
}

// commonNames is a small embedded list of frequent given names and surnames
// across the locales the product serves (Nordic, German, French, English,
// Southern/Eastern European, Middle Eastern, South and East Asian). Words that
// double as everyday nouns or colours (White, Green, King, Berg, Rose …) are
// left out on purpose so product and colour columns don't hit the list.
var commonNames = setOf(`
james john robert michael william david richard joseph thomas charles christopher daniel matthew anthony
mark donald steven paul andrew joshua kevin brian george edward ronald timothy jason jeffrey ryan jacob
gary nicholas eric jonathan stephen larry justin scott brandon benjamin samuel gregory alexander raymond
patrick jack dennis jerry tyler aaron henry peter adam oliver harry noah liam ethan lucas mary patricia
jennifer linda elizabeth barbara susan jessica sarah karen nancy lisa betty margaret sandra ashley
kimberly emily donna michelle dorothy carol amanda melissa deborah stephanie rebecca laura sharon cynthia
kathleen amy shirley angela helen anna brenda pamela nicole emma samantha katherine christine debra rachel
catherine carolyn janet ruth maria heather diane virginia julie joyce victoria olivia kelly christina lauren
joan evelyn judith megan cheryl andrea hannah martha jacqueline frances gloria ann teresa kathryn sara
janice jean alice madison doris abigail julia judy grace denise marilyn beverly danielle theresa sophia
marie diana brittany natalie isabella charlotte alexis kayla ava mia amelia chloe lily ella sophie jane
lars anders johan per erik karl nils lennart mikael hans bengt sven åke gustav oskar axel elias hugo
filip viktor emil isak albin olle björn magnus fredrik mattias stefan göran kjell leif ulf mats niklas
jonas tobias andreas martin sebastian kristina elisabeth eva karin birgitta ingrid margareta sofia kerstin
lena helena johanna linnea elsa maja wilma ebba astrid agnes freja klara stina malin frida ida linda
camilla jenny annika ulla britt gunilla inger åsa cecilia louise matilda elin moa tove lovisa
juha matti timo kari mikko jari antti jukka markku pekka heikki hannu sami ville janne ari petri tuomas
teemu jussi lauri eero aleksi onni leevi väinö eino anneli kaarina marjatta liisa annikki hannele tuula
päivi riitta leena sari pirjo minna tiina satu kirsi aino eveliina aada emilia venla lotta iida siiri
helmi kerttu ole ola knut arne bjørn odd terje geir trond kjetil morten rune espen håkon mathias sander
kristian jens søren niels rasmus mads frederik christian kasper jesper mette hanne kirsten inge nora
sofie marte solveig liv randi ingeborg signe lene pia dorthe bente susanne lise
klaus jürgen wolfgang dieter günter uwe jörg matthias markus lukas leon finn felix maximilian ben
ursula monika petra sabine renate helga brigitte gabriele claudia katharina lea leonie anja birgit heike jutta
pierre michel philippe alain nicolas françois francois jacques bernard christophe laurent olivier julien
antoine louis gabriel raphaël arthur théo nathalie isabelle sylvie françoise monique valérie sandrine
céline camille léa chloé manon inès
josé jose antonio juan manuel francisco carlos javier miguel alejandro pablo sergio jorge luis diego
giuseppe giovanni marco francesco alessandro luca matteo lorenzo carmen lucía lucia marta elena paula
sofía giulia francesca chiara valentina alessia martina ana joão joao pedro rafael beatriz mariana
piotr krzysztof tomasz paweł pawel michał michal katarzyna małgorzata agnieszka joanna magdalena pieter
dirk sanne lotte fleur daan bram ahmed mohammed mohamed muhammad ali omar hassan hussein fatima aisha
mariam yusuf ibrahim mustafa zeynep elif mehmet emre raj rahul amit priya anjali sanjay arjun wei ming
hui jing hiroshi takashi yuki haruto sakura yui kenji olga irina tatiana natalia svetlana sergei dmitri
ivan andrei vladimir nikolai
andersson johansson karlsson nilsson eriksson larsson olsson persson svensson gustafsson pettersson
jonsson jansson hansson bengtsson jönsson lindberg jakobsson magnusson olofsson lindström lindqvist
lindgren axelsson bergström lundberg lundgren lundqvist mattsson berglund fredriksson sandberg
henriksson forsberg sjöberg wallin engström eklund danielsson lundin håkansson bergman gunnarsson
wikström samuelsson isaksson fransson bergqvist nyström holmberg arvidsson löfgren söderberg nyberg
blomqvist claesson nordström mårtensson lundström
korhonen virtanen mäkinen nieminen mäkelä hämäläinen laine heikkinen koskinen järvinen lehtonen
lehtinen saarinen salminen heinonen niemi heikkilä kinnunen salonen turunen salo laitinen tuominen
rantanen karjalainen jokinen mattila savolainen lahtinen ahonen
hansen johansen olsen larsen andersen pedersen nilsen kristiansen jensen karlsen johnsen pettersen
eriksen haugen hagen johannessen andreassen jacobsen dahl jørgensen halvorsen henriksen sørensen
jakobsen gundersen iversen solberg svendsen eide knutsen martinsen paulsen bakken kristensen mathisen
amundsen rasmussen christensen poulsen madsen thomsen christiansen møller mortensen nielsen petersen
müller mueller schmidt schneider fischer weber meyer wagner becker schulz hoffmann schäfer koch bauer
richter schröder neumann zimmermann krüger hofmann hartmann schmitt werner schmitz krause meier lehmann
schmid schulze maier köhler herrmann walter mayer huber fuchs peters scholz möller vogel friedrich
keller günther berger winkler baumann franke albrecht schuster ludwig böhm kraus schumacher vogt
jäger seidel heinrich brandt schreiber dietrich ziegler kuhn kühn pohl bergmann voigt arnold wolff pfeiffer
smith johnson williams jones garcia miller davis rodriguez martinez hernandez lopez gonzalez wilson
anderson taylor moore jackson lee perez thompson harris sanchez clark ramirez lewis robinson walker
allen wright torres nguyen flores adams nelson rivera campbell mitchell roberts gomez phillips evans
turner diaz parker edwards collins reyes stewart morris morales murphy rogers gutierrez ortiz morgan
cooper peterson bailey kelly howard ramos kim cox richardson watson brooks chavez bennett mendoza ruiz
hughes alvarez castillo sanders patel myers ross foster jimenez o'brien o'connor mcdonald macdonald
murray walsh byrne o'sullivan doyle kennedy lynch davies
dubois durand leroy moreau lefebvre bertrand roux vincent fournier morel girard andré lefèvre mercier
dupont lambert bonnet dupuis rousseau guerin roussel perrin morin mathieu clement gauthier dumont
fontaine chevalier
rossi russo esposito bianchi romano colombo ricci marino greco conti giordano mancini rizzo lombardi
moretti fernández fernandez gonzález rodríguez martínez sánchez pérez gómez jiménez hernández díaz
moreno álvarez muñoz romero alonso gutiérrez navarro silva santos ferreira pereira oliveira rodrigues
martins sousa fernandes gonçalves gomes
nowak kowalski wiśniewski wisniewski wójcik kowalczyk kamiński lewandowski zieliński szymański woźniak
jansen janssen visser meijer mulder hendriks dekker yilmaz kaya demir şahin çelik yıldız ivanov
smirnov kuznetsov popov petrov kumar singh sharma gupta khan shah hussain wang zhang liu chen yang
huang zhao zhou sato suzuki takahashi tanaka watanabe yamamoto nakamura kobayashi choi
`)

// nameParticles may appear lower-case inside a person name.
var nameParticles = setOf(`van von der den de del della di da dos das du la le af av ter ten bin ibn al el y zu op`)

// genderVocab maps gender values (several languages) to a class.
var genderVocab = map[string]string{
	"m": "male", "male": "male", "man": "male", "men": "male", "mann": "male", "mand": "male", "mies": "male",
	"männlich": "male", "maennlich": "male", "homme": "male", "hombre": "male", "masculino": "male",
	"masculine": "male", "masculin": "male", "boy": "male", "herr": "male", "mr": "male", "hane": "male",
	"h": "male", // homme, hombre
	"f": "female", "female": "female", "woman": "female", "women": "female", "w": "female", "kvinna": "female",
	"kvinne": "female", "kvinde": "female", "nainen": "female", "weiblich": "female", "frau": "female",
	"femme": "female", "mujer": "female", "femenino": "female", "feminine": "female", "féminin": "female",
	"feminin": "female", "girl": "female", "mrs": "female", "ms": "female", "hona": "female", "k": "female",
	"other": "other", "non-binary": "other", "nonbinary": "other", "non binary": "other", "x": "other",
	"diverse": "other", "divers": "other", "d": "other", "annat": "other", "annan": "other", "muu": "other",
	"andet": "other", "anden": "other", "annet": "other", "autre": "other", "otro": "other",
	"unknown": "unknown", "u": "unknown", "prefer not to say": "unknown", "okänd": "unknown",
	"unspecified": "unknown", "not specified": "unknown", "ei tiedossa": "unknown",
}

// iso5218 are the ISO/IEC 5218 codes of sex: 0 not known, 1 male, 2 female,
// 9 not applicable.
var iso5218 = map[string]string{"0": "unknown", "1": "male", "2": "female", "9": "unknown"}

// booleanVocab maps boolean spellings to true/false.
var booleanVocab = map[string]bool{
	"true": true, "false": false, "t": true, "f": false, "yes": true, "no": false, "y": true, "n": false,
	"1": true, "0": false, "ja": true, "nej": false, "nei": false, "kyllä": true, "kylla": true, "ei": false,
	"nein": false, "oui": true, "non": false, "si": true, "sí": true, "on": true, "off": false,
	"checked": true, "unchecked": false, "enabled": true, "disabled": false, "active": true, "inactive": false,
}

var religionVocab = setOf(`christian christianity catholic roman_catholic protestant lutheran evangelical orthodox
eastern_orthodox anglican baptist methodist pentecostal mormon jehovah's_witness muslim islam sunni shia
jewish judaism hindu hinduism buddhist buddhism sikh sikhism jain bahai bahá'í taoist shinto atheist agnostic
pagan spiritual kristen katolik judisk ateist agnostiker muslimsk svenska_kyrkan church_of_sweden
luterilainen ortodoksi kristitty muslimi juutalainen ateisti evankelis-luterilainen evangelisch katholisch
römisch-katholisch muslimisch jüdisch konfessionslos christlich chrétien catholique musulman juif athée
folkekirken den_norske_kirke islamic ortodox ortodoksinen katolsk katolsk_kirke muslimsk_tro buddhist
protestantisch orthodoxe bouddhiste hindou sikhe athéisme agnostique latter-day_saints quaker
evangelisch-lutherisch freikirchlich alevitisch church_of_england c_of_e church_of_scotland church_of_ireland
humanist humanism unitarian seventh-day_adventist adventist presbyterian episcopalian zoroastrian rastafarian`)

var ethnicityVocab = setOf(`white black asian hispanic latino latina latinx caucasian african_american
black_or_african_american african caribbean pacific_islander native_hawaiian native_american american_indian
alaska_native american_indian_or_alaska_native native_hawaiian_or_other_pacific_islander middle_eastern arab
mixed multiracial two_or_more_races south_asian east_asian southeast_asian indian pakistani bangladeshi
chinese white_british white_irish white_other black_british black_african black_caribbean roma sami sámi
hispanic_or_latino not_hispanic_or_latino north_african mixed_race indigenous aboriginal first_nations
inuit métis maori white_and_asian white_and_black_caribbean white_and_black_african any_other_white_background
mixed_ethnic_group asian_british black_british arab_or_middle_eastern latin_american gypsy irish_traveller`)

var orientationVocab = setOf(`heterosexual straight homosexual gay lesbian bisexual asexual pansexual queer
questioning gay_or_lesbian lgbt lgbtq lgbtq+ heterosexuell homosexuell bisexuell heteroseksuaali
homoseksuaali biseksuaali hétérosexuel homosexuel bisexuel heteroseksuell homoseksuell biseksuell
asexuell pansexuell queer_person aseksuaali panseksuaali hétérosexuelle homosexuelle bisexuelle`)

var politicalVocab = setOf(`democrat democratic democratic_party republican republican_party independent
conservative conservatives liberal liberals labour labor green greens green_party socialist social_democrat
social_democrats libertarian centrist moderate progressive communist nationalist far_left far_right
centre-left centre-right center-left center-right left right centre center
moderaterna socialdemokraterna sverigedemokraterna vänsterpartiet centerpartiet liberalerna
kristdemokraterna miljöpartiet kokoomus sdp perussuomalaiset keskusta vihreät vasemmistoliitto rkp
høyre arbeiderpartiet frp fremskrittspartiet senterpartiet sosialistisk_venstreparti venstre
socialdemokratiet dansk_folkeparti det_konservative_folkeparti enhedslisten cdu csu spd afd fdp grüne
die_grünen die_linke bsw tory tories lib_dem lib_dems liberal_democrats snp plaid_cymru reform_uk ukip
renaissance rassemblement_national les_républicains la_france_insoumise liberal_democrat
conservative_party labour_party scottish_national_party green_party_of_england_and_wales sinn_féin dup
kd mp sd centern vänstern socialdemokratene kristelig_folkeparti rødt miljøpartiet_de_grønne
radikale_venstre sf socialistisk_folkeparti liberal_alliance moderaterne bündnis_90/die_grünen
freie_wähler vasemmisto perussuomalainen vihreä_liitto kristillisdemokraatit liike_nyt`)

var healthVocab = setOf(`diabetes type_1_diabetes type_2_diabetes asthma hypertension depression anxiety
cancer breast_cancer lung_cancer covid-19 covid copd migraine epilepsy arthritis rheumatoid_arthritis
osteoarthritis obesity hiv aids hepatitis hepatitis_b hepatitis_c adhd autism dementia alzheimer's
alzheimers parkinson's parkinsons stroke heart_failure coronary_artery_disease influenza pneumonia
bronchitis allergy eczema psoriasis bipolar_disorder schizophrenia ptsd multiple_sclerosis celiac_disease
crohn's_disease ulcerative_colitis chronic_kidney_disease anemia hypothyroidism hyperthyroidism
tuberculosis lupus fibromyalgia insomnia osteoporosis glaucoma cataract gout sleep_apnea pregnancy
diabetes_mellitus high_blood_pressure atrial_fibrillation angina back_pain coeliac_disease heart_disease
kidney_disease chronic_pain long_covid disability hearing_loss visual_impairment high_cholesterol
hypercholesterolemia ibs irritable_bowel_syndrome sciatica heart_murmur underactive_thyroid overactive_thyroid
bad_back back_problems chronic_fatigue endometriosis pcos sickle_cell thalassemia kidney_stones gallstones
tinnitus vertigo macular_degeneration dyslexia cerebral_palsy down_syndrome hiv_positive angina_pectoris
heart_attack myocardial_infarction arrhythmia cholesterol reflux gerd acid_reflux
headache fever cough chest_pain shortness_of_breath fatigue dizziness sore_throat nausea vomiting rash
diarrhoea diarrhea abdominal_pain stomach_ache joint_pain palpitations swelling numbness insomnia
huvudvärk feber hosta illamående yrsel trötthet kopfschmerzen fieber husten übelkeit schwindel
päänsärky kuume yskä pahoinvointi huimaus väsymys
astma diabetes_typ_2 högt_blodtryck depressio verenpainetauti masennus diabetes_typ_1 bluthochdruck
kol migrän epilepsi reumatism hjärtsvikt cancer demens ångest utmattningssyndrom
migräne herzinsuffizienz arthrose rheuma demenz angststörung krebs schlaganfall
migreeni sepelvaltimotauti astma diabetes syöpä muistisairaus ahdistus reuma
hypertension_artérielle diabète asthme dépression cancer_du_sein
peanut peanuts tree_nuts nuts penicillin pollen lactose lactose_intolerance gluten shellfish latex eggs
egg milk soy sulfa sulfonamides bee_stings wasp_stings dust_mites cat_dander fish wheat sesame hay_fever
nötter jordnötter pollenallergi laktos pähkinä siitepöly laktoosi nüsse erdnüsse laktoseintoleranz`)

// drugNames are frequently prescribed medicines whose names carry no INN
// stem (see drugStems).
var drugNames = setOf(`paracetamol acetaminophen aspirin salbutamol albuterol insulin warfarin metformin
levothyroxine morphine codeine tramadol ibuprofen naproxen diclofenac amoxicillin furosemide prednisolone
prednisone citalopram sertraline escitalopram fluoxetine gabapentin pregabalin allopurinol clopidogrel
apixaban rivaroxaban digoxin lithium methotrexate hydrochlorothiazide ventolin alvedon ipren panodil`)

// drugStems are WHO INN stems that name a drug class (atorvastatin,
// lisinopril, losartan, metoprolol, omeprazole …).
var drugStems = []string{"statin", "pril", "sartan", "olol", "prazole", "dipine", "cillin", "mycin", "floxacin",
	"cycline", "tidine", "gliptin", "gliflozin", "glutide", "xetine", "oxetine", "azepam", "zolam", "profen",
	"parin", "mab", "tinib", "vir", "semide", "thiazide", "sone", "olone", "terol", "tropium", "triptan", "setron"}

// unionHints are substrings typical of trade union names.
var unionNameParts = []string{"union", "förbund", "forbund", "liitto", "gewerkschaft", "syndicat",
	"sindicato", "kommunal", "metall", "ver.di", "verdi", "unite", "unison", "teamsters", "seiu", "afl-cio",
	"saco", "tco", "akava", "jhl", "tehy", "jyty", "pam", "stty", "sif", "3f", "dansk metal", "fnv", "cgt",
	"cfdt", "ccoo", "ugt", "gmb", "nea", "aft", "fackförening", "ammattiliitto", "fagforening", "vision",
	"lärarförbundet", "ig bce", "lo", "handels", "seko", "byggnads", "ssr", "st", "gs", "transport",
	"ig metall", "gew", "ngg", "evg", "gdp", "ig bau", "dbb", "rmt", "neu", "usdaw", "pcs", "cwu", "rcn",
	"bma", "ucu", "uaw", "afscme", "ufcw", "ibew", "teollisuusliitto", "sak", "sttk", "oaj", "erto",
	"fagforbundet", "fellesforbundet", "handel og kontor", "utdanningsforbundet", "nsf", "ys", "unio",
	"hk", "foa", "bupl", "dlf", "cgil", "cisl", "uil", "fo", "cfe-cgc", "solidarność", "solidarnosc"}

// streetWords are whole tokens that mark a street in an address.
var streetWords = setOf(`street st str road rd avenue ave av boulevard blvd lane ln drive dr court ct
place pl way terrace ter square sq highway hwy parkway pkwy circle cir crescent cres close grove gardens
row mews rue chemin allée allee impasse quai cours via viale piazza corso calle avenida plaza paseo carrer
rua travessa straat laan weg plein gracht kade ulica ul box gatan gata vägen väg vagen gränd torget torg
stigen backen allén vei veien veg vegen gate gaten katu tie kuja polku gade vej straße strasse gasse
platz ring damm ufer chaussee steig pfad postbox postboks`)

// streetSuffixes mark compound street names (Storgatan, Mannerheimintie, Hauptstraße, Nørregade …).
var streetSuffixes = []string{"gatan", "gata", "vägen", "vagen", "väg", "gränd", "torget", "stigen",
	"backen", "allén", "veien", "vegen", "gaten", "gate", "katu", "tie", "kuja", "polku", "gade", "vej",
	"vænget", "straße", "strasse", "str.", "gasse", "platz", "allee", "weg", "straat", "laan", "gracht",
	"plein", "kade", "steig", "road", "street",
	"g.", "v."} // Swedish abbreviations: Storg. 5, Sveav. 12

// currencyTokens are symbols and ISO 4217 codes accepted around money amounts.
var currencyTokens = []string{"US$", "A$", "C$", "NZ$", "HK$", "$", "€", "£", "¥", "₹", "₽", "₩", "₺", "₪",
	"฿", "₫", "zł", "kr.", "kr", ":-", "Fr.", "CHF", "SEK", "NOK", "DKK", "EUR", "USD", "GBP", "JPY", "CNY",
	"AUD", "CAD", "NZD", "ISK", "PLN", "CZK", "HUF", "INR", "BRL", "MXN", "ZAR", "RUB", "TRY", "KRW", "SGD",
	"HKD"}
