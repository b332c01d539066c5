package columns

import "strings"

// words splits a list on spaces; an underscore inside an entry stands for a
// space ("De_Luca" is the surname "De Luca").
func words(s string) []string {
	fs := strings.Fields(s)
	for i, f := range fs {
		fs[i] = strings.ReplaceAll(f, "_", " ")
	}
	return fs
}

// culture holds given names and surnames of one naming tradition, most
// frequent first (picked with a Zipf law), written as people write them,
// diacritics included.
type culture struct {
	locale  string
	given   []string
	surname []string
}

var cultures = []culture{
	{"sv-SE",
		words("Anna Erik Lars Karin Maria Johan Björn Åsa Linnéa Märta Göran Sören Ebba Hugo Astrid Wilma Oskar Elsa Ingvar Gunnel Kjell Signe Algot Saga Ture Maj-Britt Sixten Tindra"),
		words("Andersson Johansson Karlsson Nilsson Eriksson Lindqvist Öberg Sjögren Ekström Bäckström Holmgren Nordin Åberg Söderlund Wahlberg Lindahl Hedlund Strömberg Fält Grönlund Blomkvist Ljungberg")},
	{"fi-FI",
		words("Mikko Aino Juha Päivi Väinö Tuula Eero Hanna-Leena Jukka Satu Ilkka Kyllikki Onni Sirkka Lauri Iida Tapio Helmi Ritva Joonas Veikko Eveliina Aatu Pihla"),
		words("Virtanen Korhonen Mäkelä Hämäläinen Nieminen Heikkinen Koskinen Järvinen Lehtonen Räsänen Kärkkäinen Pöllänen Väisänen Huttunen Tolonen Ylönen Savolainen Peltola Kivelä")},
	{"nb-NO",
		words("Ole Ingrid Bjørn Solveig Kari Håkon Sigrid Øystein Ragnhild Knut Åse Torbjørn Kjersti Even Synnøve Eirik Tone Audun Marit Vegard"),
		words("Hansen Johansen Olsen Larsen Haugen Bakken Kristiansen Solberg Strand Nygård Aasen Fjeld Berge Lie Sæther Dahl Holm Myklebust Grønli Østby")},
	{"da-DK",
		words("Søren Mette Jens Kirsten Niels Lone Rasmus Birthe Mads Ane Frederik Jytte Anders Sofie Mikkel Dorthe Jørgen Ida Kasper Bodil"),
		words("Nielsen Jensen Hansen Pedersen Andersen Christensen Rasmussen Jørgensen Madsen Kjærgaard Sørensen Mortensen Thøgersen Lauridsen Bech Winther Østergaard Kragh Dalsgaard")},
	{"de-DE",
		words("Jürgen Ursula Klaus Jörg Günther Brigitte Maximilian Lea Sabine Dieter Hannelore Lukas Anneliese Björn Käthe Torsten Heike Uwe Friederike Reinhard"),
		words("Müller Schmidt Schneider Fischer Weber Schröder Groß Köhler Zimmermann Krüger Hoffmann Schäfer Bäcker Weiß Lößer Jäger Vogel Braun Hübner Kühn Fuchs")},
	{"fr-FR",
		words("François Céline Hélène Jérôme Amélie Benoît Élodie Loïc Marie Nicolas Chloé Gaëlle Thierry Inès Maëlle Stéphane Sébastien Léa Océane Aurélien"),
		words("Dubois Lefèvre Martin Bernard Moreau Girard Rousseau Fournier Mercier Lemaître Chevalier Garnier Faure Bonnet Gauthier Rivière Duchêne Lévêque Bréhaut")},
	{"es-ES",
		words("José María Íñigo Begoña Sebastián Lucía Alejandro Carmen Jesús Pilar Álvaro Nuria Javier Rocío Andrés Maite"),
		words("García Fernández González Rodríguez López Martínez Sánchez Pérez Gómez Núñez Jiménez Muñoz Álvarez Ibáñez Ortega Castaño Peña")},
	{"pt-BR",
		words("João Conceição Ana Luiz Thiago Gonçalo Mariana Fernanda Rafael Beatriz Antônio Letícia"),
		words("Silva Santos Oliveira Souza Gonçalves Pereira Araújo Ribeiro Magalhães Conceição Azevedo Simões")},
	{"it-IT",
		words("Giuseppe Giulia Niccolò Francesca Alessandro Chiara Lorenzo Federica Matteo Gianluca Ilaria Salvatore"),
		words("Rossi Russo Ferrari Esposito Bianchi Romano Colombo Ricci Marino Greco Bruno Gallo Conti De_Luca")},
	{"pl-PL",
		words("Łukasz Małgorzata Wojciech Agnieszka Krzysztof Katarzyna Paweł Zofia Grzegorz Ewa Jędrzej Bożena"),
		words("Nowak Kowalski Wiśniewski Wójcik Kowalczyk Kamiński Lewandowski Zieliński Szymański Woźniak Dąbrowski Kozłowski")},
	{"cs-CZ",
		words("Jiří Zdeněk Tomáš Lenka Petra Kateřina Ondřej Jana"),
		words("Dvořák Novotný Svoboda Černý Procházka Kučerová Veselý Horák")},
	{"tr-TR",
		words("Mehmet Ayşe Çağlar Gülşen Mustafa Zeynep Emre Elif Oğuz Büşra Hüseyin Şeyma"),
		words("Yılmaz Kaya Demir Şahin Çelik Yıldız Öztürk Aydın Özdemir Arslan Doğan Kılıç")},
	{"ar",
		words("Mohammed Fatima Youssef Layla Omar Aisha Khalid Noor Hassan Mariam Karim Yasmin Tariq Rania"),
		words("Al-Farsi Haddad Khalil Nasser Mansour Saleh Hamdan Al-Sayed El-Amin Bakr Aziz Darwish")},
	{"hi-IN",
		words("Priya Rahul Ananya Vikram Lakshmi Sanjay Aarav Divya Arjun Kavya Rohan Meera Suresh Deepika"),
		words("Patel Sharma Singh Kumar Gupta Reddy Iyer Krishnamurthy Nair Chatterjee Mehta Joshi Rao")},
	{"zh",
		words("Wei Jing Xiaoming Li_Na Hui Yan Jun Mei Lei Fang Hao Ying"),
		words("Wang Zhang Liu Chen Yang Huang Zhao Zhou Wu Xu Sun Lin")},
	{"ja-JP",
		words("Yuki Haruto Sakura Takashi Aiko Kenji Yui Hiroshi Emi Daisuke"),
		words("Tanaka Suzuki Takahashi Watanabe Yamamoto Nakamura Kobayashi Sato Ito Kato")},
	{"vi-VN",
		words("Hoa Minh Lan Tuấn Hương Dũng Thảo Quang"),
		words("Nguyễn Trần Lê Phạm Hoàng Vũ Đặng Bùi")},
	{"yo-NG",
		words("Chinonso Oluwaseun Amara Kwame Thandiwe Chiamaka Adebayo Ngozi Kofi Abena Tunde Zanele"),
		words("Okafor Mensah Adeyemi Okonkwo Boateng Nkosi Eze Owusu Abubakar Dlamini Balogun Mwangi")},
	{"en-GB",
		words("James Emily Oliver Charlotte Siobhán Seán Niamh Aoife George Harriet Callum Eilidh Rhys Bethan"),
		words("Smith Jones Williams Taylor Brown O'Brien MacLeod Ó_Súilleabháin Evans Thomas Murphy Campbell Hughes Fitzgerald")},
	{"en-US",
		words("Michael Jennifer Christopher Ashley Tyler Brittany DeShawn Latoya Kayla Brandon Madison Jamal Savannah Cody"),
		words("Johnson Miller Davis Wilson Anderson Jackson Thompson White Harris Robinson Washington Rodriguez Nguyen Kim")},
	{"nl-NL",
		words("Daan Sanne Bram Femke Joost Anouk Thijs Lieke"),
		words("de_Jong Jansen de_Vries van_den_Berg van_Dijk Bakker Visser Smit Meijer de_Boer")},
}

// ---------------------------------------------------------------------------
// Places

type country struct {
	code    string
	cities  []string
	streets []string // street names as written in an address, without number
}

var countries = map[string]country{
	"SE": {"SE", words("Stockholm Göteborg Malmö Uppsala Västerås Örebro Linköping Umeå Lund Jönköping"),
		[]string{"Storgatan", "Drottninggatan", "Kungsgatan", "Sveavägen", "Odengatan", "Vasagatan", "Östra Hamngatan", "Linnégatan", "Björkvägen", "Ringvägen", "Södra Förstadsgatan", "Skolgatan"}},
	"FI": {"FI", words("Helsinki Espoo Tampere Vantaa Oulu Turku Jyväskylä Lahti Kuopio"),
		[]string{"Mannerheimintie", "Hämeentie", "Aleksanterinkatu", "Kauppakatu", "Puistokatu", "Koulukatu", "Rantatie", "Kirkkokatu", "Satamakatu", "Mäkelänkatu"}},
	"NO": {"NO", words("Oslo Bergen Trondheim Stavanger Drammen Tromsø Kristiansand"),
		[]string{"Karl Johans gate", "Bogstadveien", "Thorvald Meyers gate", "Storgata", "Kirkeveien", "Strandgaten", "Trondheimsveien", "Parkveien"}},
	"DK": {"DK", words("København Aarhus Odense Aalborg Esbjerg Randers Kolding"),
		[]string{"Nørregade", "Vesterbrogade", "Amagerbrogade", "Østergade", "Jernbanegade", "Skolevej", "Søndergade", "Nørrebrogade"}},
	"DE": {"DE", words("Berlin Hamburg München Köln Frankfurt Stuttgart Düsseldorf Leipzig Dresden Nürnberg"),
		[]string{"Hauptstraße", "Berliner Straße", "Goethestr.", "Lindenallee", "Bahnhofstraße", "Schillerstraße", "Gartenweg", "Am Markt", "Kirchplatz", "Friedrichstraße", "Mühlenweg"}},
	"FR": {"FR", words("Paris Marseille Lyon Toulouse Nice Nantes Strasbourg Bordeaux Lille Rennes"),
		[]string{"rue de la Paix", "avenue des Champs-Élysées", "boulevard Haussmann", "rue Victor Hugo", "place de la République", "rue du Faubourg Saint-Honoré", "allée des Tilleuls", "chemin des Vignes", "impasse des Lilas"}},
	"GB": {"GB", words("London Manchester Birmingham Leeds Glasgow Edinburgh Bristol Cardiff Belfast"),
		[]string{"Baker Street", "High Street", "Station Road", "Church Lane", "Victoria Road", "Park Avenue", "Queen's Road", "Mill Lane", "The Crescent", "Kings Road"}},
	"US": {"US", words("Springfield Austin Seattle Denver Boston Chicago Portland Phoenix Atlanta"),
		[]string{"Main Street", "Oak Ave", "Maple St", "Park Blvd", "Elm Street", "Washington Ave", "Lakeview Dr", "Sunset Blvd", "Cedar Ln", "Pine Ct", "5th Ave", "Broadway"}},
	"NL": {"NL", words("Amsterdam Rotterdam Utrecht Eindhoven Groningen"),
		[]string{"Keizersgracht", "Damrak", "Kalverstraat", "Dorpsstraat", "Kerkstraat", "Stationsweg", "Molenlaan"}},
	"ES": {"ES", words("Madrid Barcelona Valencia Sevilla Zaragoza Bilbao"),
		[]string{"Calle Mayor", "Avenida de la Constitución", "Calle de Alcalá", "Paseo de Gracia", "Carrer de Balmes", "Plaza Mayor"}},
	"IT": {"IT", words("Roma Milano Napoli Torino Bologna Firenze"),
		[]string{"Via Roma", "Via Garibaldi", "Corso Vittorio Emanuele", "Piazza del Duomo", "Viale Europa", "Via Dante"}},
}

// ---------------------------------------------------------------------------
// Everyday vocabularies

var emailDomains = []string{"gmail.com", "outlook.com", "hotmail.com", "yahoo.com", "icloud.com", "hotmail.se",
	"telia.com", "live.se", "yahoo.fi", "luukku.com", "online.no", "gmail.dk", "web.de", "gmx.de", "t-online.de",
	"orange.fr", "free.fr", "laposte.net", "btinternet.com", "yahoo.co.uk", "comcast.net", "proton.me",
	"firma.se", "acme-corp.com", "uni-helsinki.fi", "student.lu.se", "nhs.net", "kommun.se", "example.org"}

var productWords = words("Chair Lamp Kettle Desk Sofa Mug Blender Backpack Monitor Keyboard Jacket Sneakers Tent Drill Toaster Pillow")
var productAdjectives = words("Deluxe Classic Compact Smart Nordic Pro Mini Ultra Eco Premium")

var companyStems = words("Acme Nordic Polar Baltic Alpine Fjord Aurora Zenith Vertex Lumen Granit Helix Boreal Kobalt Sisu Hygge")
var companySuffixes = words("AB Oy AS A/S GmbH Ltd Inc. SA S.p.A. BV LLC")

var sentenceSubjects = []string{"The delivery", "Customer", "Our team", "The product", "Support", "This order",
	"The driver", "The invoice", "Warehouse", "The technician", "Billing", "The package"}
var sentenceVerbs = []string{"arrived late", "was very helpful", "needs a follow-up", "was damaged in transit",
	"works as expected", "should be refunded", "called back twice", "was sent to the wrong address",
	"is waiting for parts", "was closed without a reply", "asked for a discount", "requested a new quote"}
var sentenceTails = []string{"and everything was fine.", "according to the ticket.", "so please check again.",
	"before the weekend.", "after the update.", "as discussed.", "- escalate if it happens again.",
	"but nobody answered.", "(see previous case).", "again!!", "on Monday morning.", "per the contract."}

var svComments = []string{"Leveransen kom fram i tid, tack!", "Kunden vill bli uppringd efter lunch.",
	"Paketet var skadat vid ankomst.", "Fakturan skickades till fel adress.", "Bra service, kommer att handla igen.",
	"Väntar på reservdelar från leverantören.", "Ring inte före kl 9 på morgonen."}
var deComments = []string{"Lieferung kam pünktlich an, vielen Dank.", "Kunde bittet um Rückruf am Nachmittag.",
	"Ware war beim Empfang beschädigt.", "Rechnung wurde an die falsche Adresse geschickt.",
	"Sehr freundlicher Service, gerne wieder.", "Ersatzteile sind noch nicht geliefert worden."}
var fiComments = []string{"Toimitus saapui ajallaan, kiitos.", "Asiakas pyytää soittoa iltapäivällä.",
	"Paketti oli vaurioitunut perillä.", "Lasku lähetettiin väärään osoitteeseen.", "Erinomainen palvelu, tilaan uudelleen."}
